package io.outboxer.it.setup;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium}, driven through its {@code
 * chromedriver}), signed in with HTTP basic authentication. Installs both packages when they are
 * missing, since nothing installed by hand survives on the machines the tests run on.
 */
public final class Dashboard implements AutoCloseable {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private final ChromeDriver browser;

  private Dashboard(ChromeDriver browser) {
    this.browser = browser;
  }

  /** Opens {@code url} (the dashboard) as {@code user}. */
  public static Dashboard open(String url, String user, String password) throws Exception {
    installChromium();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--user-data-dir=" + Files.createTempDirectory("outboxer-chromium"));
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    ChromeDriver browser = new ChromeDriver(service, options);
    try {
      browser.manage().window().setSize(new Dimension(1600, 1200));
      // Basic authentication on every request of the page, its scripts' calls included.
      String credentials =
          Base64.getEncoder()
              .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
      browser.executeCdpCommand("Network.enable", Map.of());
      browser.executeCdpCommand(
          "Network.setExtraHTTPHeaders",
          Map.of("headers", Map.of("Authorization", "Basic " + credentials)));
      browser.get(url);
      Dashboard dashboard = new Dashboard(browser);
      dashboard.awaitRefresh();
      return dashboard;
    } catch (RuntimeException | Error e) {
      browser.quit();
      throw e;
    }
  }

  private static synchronized void installChromium() throws IOException, InterruptedException {
    if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
      return;
    }
    for (List<String> command :
        List.of(
            List.of("apt-get", "update"),
            List.of(
                "apt-get",
                "install",
                "-y",
                "--no-install-recommends",
                "chromium",
                "chromium-driver"))) {
      Process p = new ProcessBuilder(command).inheritIO().start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(
            "the browser test needs Debian's chromium and chromium-driver, and '"
                + String.join(" ", command)
                + "' failed with exit code "
                + p.exitValue());
      }
    }
  }

  /** Waits until the page has shown figures newer than those it showed when called. */
  public void awaitRefresh() {
    String before = updated();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !updated().isEmpty() && !updated().equals(before));
  }

  private String updated() {
    String value = browser.findElement(By.tagName("body")).getDomAttribute("data-updated");
    return value == null ? "" : value;
  }

  /** Shows {@code outbox}, as a click on its row does. */
  public void show(String outbox) {
    browser.findElement(By.cssSelector("#outboxes tr[data-outbox='" + outbox + "']")).click();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> browser.findElement(By.id("outbox-name")).getText().equals(outbox));
    awaitRefresh();
  }

  /** The cells of the row of {@code table} (dead, retrying, held) showing message {@code id}. */
  public List<String> row(String table, long id) {
    return rowElement(table, id).findElements(By.tagName("td")).stream()
        .map(WebElement::getText)
        .toList();
  }

  /** True while {@code table} shows message {@code id}. */
  public boolean shows(String table, long id) {
    return !browser.findElements(rowSelector(table, id)).isEmpty();
  }

  /** Waits until {@code table} no longer shows message {@code id}. */
  public void awaitGone(String table, long id) {
    await().atMost(Duration.ofSeconds(30)).until(() -> !shows(table, id));
  }

  /** Clicks the button of class {@code action} (retry, discard, release) in a message's row. */
  public void click(String table, long id, String action) {
    rowElement(table, id).findElement(By.cssSelector("button." + action)).click();
  }

  /** The status line: what the last action did, or why it failed. */
  public String status() {
    return browser.findElement(By.id("status")).getText();
  }

  public void screenshot(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, browser.getScreenshotAs(OutputType.BYTES));
  }

  private WebElement rowElement(String table, long id) {
    return browser.findElement(rowSelector(table, id));
  }

  private static By rowSelector(String table, long id) {
    return By.cssSelector("#" + table + " tbody tr[data-id='" + id + "']");
  }

  @Override
  public void close() {
    browser.quit();
  }
}
