// The Outboxer dashboard: reads the admin API (admin/...) every few seconds and calls its repairs.
// Every value from the server goes into the page as text, never as markup.
"use strict";

const REFRESH_MS = 5000;
let selected = null;
let chart = null;

function api(path, options) {
  return fetch("admin/" + path, Object.assign({ headers: { Accept: "application/json" } }, options))
    .then(async (response) => {
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        throw new Error(body.error || response.status + " " + response.statusText);
      }
      return body;
    });
}

function outboxPath(suffix) {
  return "outboxes/" + encodeURIComponent(selected) + suffix;
}

function cell(row, value, className) {
  const td = row.insertCell();
  td.textContent = value === null || value === undefined ? "" : String(value);
  if (className) {
    td.className = className;
  }
  return td;
}

function time(instant) {
  return instant ? new Date(instant).toLocaleTimeString() : "";
}

function button(td, label, action, className) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.className = className || "";
  b.addEventListener("click", action);
  td.appendChild(b);
  return b;
}

function fill(table, rows, columns, render) {
  const body = table.tBodies[0];
  body.replaceChildren();
  if (rows.length === 0) {
    const row = body.insertRow();
    row.className = "empty";
    const td = cell(row, "none");
    td.colSpan = columns;
  }
  rows.forEach((item) => render(body.insertRow(), item));
}

function say(text, isError) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = isError ? "error" : "";
}

function repair(description, path, method) {
  return api(path, { method: method })
    .then((changed) => say(description + ": " + changed.messages + " message(s)"))
    .catch((e) => say(description + " failed: " + e.message, true))
    .then(refresh);
}

function renderOutboxes(outboxes) {
  if (selected === null && outboxes.length > 0) {
    selected = outboxes[0].name;
  }
  fill(document.getElementById("outboxes"), outboxes, 5, (row, o) => {
    row.dataset.outbox = o.name;
    row.className = o.name === selected ? "selected" : "";
    cell(row, o.name);
    [o.pending, o.retrying, o.held, o.dead].forEach((n) => cell(row, n, "number"));
    row.addEventListener("click", () => {
      selected = o.name;
      refresh();
    });
  });
}

function renderPartitions(outbox) {
  const now = Date.now();
  fill(document.getElementById("partitions"), outbox.partitions, 8, (row, p) => {
    cell(row, p.partition, "number");
    [p.pending, p.retrying, p.held, p.dead].forEach((n) => cell(row, n, "number"));
    const expires = p.leaseExpiresAt ? new Date(p.leaseExpiresAt).getTime() : 0;
    const held = p.owner && expires > now;
    cell(row, held ? p.owner : "no owner");
    cell(row, p.epoch, "number");
    cell(row, held ? "expires in " + Math.ceil((expires - now) / 1000) + " s" : "");
  });
}

function renderMessages(tableId, page, render) {
  fill(document.getElementById(tableId), page.messages, 7, (row, m) => {
    row.dataset.id = m.id;
    cell(row, m.id, "number");
    cell(row, m.groupKey);
    cell(row, m.type);
    render(row, m);
  });
}

function renderDead(page) {
  renderMessages("dead", page, (row, m) => {
    cell(row, m.attempts, "number");
    cell(row, time(m.lastAttemptAt));
    cell(row, m.lastError, "error");
    const actions = cell(row, "");
    button(actions, "Retry", () => repair("Retried " + m.id, outboxPath("/messages/" + m.id + "/retry"), "POST"), "retry");
    button(actions, "Discard", () => discard(m), "discard danger");
  });
}

function renderRetrying(page) {
  renderMessages("retrying", page, (row, m) => {
    cell(row, m.attempts, "number");
    cell(row, time(m.nextAttemptAt));
    cell(row, m.lastError, "error");
    const actions = cell(row, "");
    if (m.groupKey !== null && m.groupKey !== undefined) {
      button(actions, "Retry now", () => release(m.groupKey), "release");
    }
    button(actions, "Discard", () => discard(m), "discard danger");
  });
}

function renderHeld(page) {
  renderMessages("held", page, (row, m) => {
    cell(row, time(m.createdAt));
    button(cell(row, ""), "Release group", () => release(m.groupKey), "release");
  });
}

function discard(m) {
  if (window.confirm("Discard message " + m.id + " for good? It will never be delivered.")) {
    repair("Discarded " + m.id, outboxPath("/messages/" + m.id), "DELETE");
  }
}

function release(group) {
  repair("Released group " + group, outboxPath("/release?group=" + encodeURIComponent(group)), "POST");
}

function renderChart(samples) {
  const data = [
    samples.map((s) => new Date(s.at).getTime() / 1000),
    samples.map((s) => s.pending),
    samples.map((s) => s.dead),
  ];
  if (chart === null) {
    chart = new uPlot(
      {
        width: 720,
        height: 220,
        series: [
          {},
          { label: "pending", stroke: "#2f6fb0", width: 2 },
          { label: "dead", stroke: "#c0392b", width: 2 },
        ],
        axes: [{}, { label: "messages" }],
      },
      data,
      document.getElementById("chart"),
    );
  } else {
    chart.setData(data);
  }
}

function refresh() {
  return api("outboxes")
    .then((outboxes) => {
      renderOutboxes(outboxes);
      if (selected === null) {
        return null;
      }
      document.getElementById("outbox").hidden = false;
      document.getElementById("outbox-name").textContent = selected;
      return Promise.all([
        api(outboxPath("")).then(renderPartitions),
        api(outboxPath("/history")).then(renderChart),
        api(outboxPath("/messages?state=dead")).then(renderDead),
        api(outboxPath("/messages?state=retrying")).then(renderRetrying),
        api(outboxPath("/messages?state=held")).then(renderHeld),
      ]);
    })
    .then(() => {
      // When the page last showed fresh figures (the browser test waits for it).
      document.body.dataset.updated = new Date().toISOString();
    })
    .catch((e) => say("Cannot read the admin API: " + e.message, true));
}

document.getElementById("retry-all-dead").addEventListener("click", () =>
  repair("Retried all dead", outboxPath("/retry-dead"), "POST"));
refresh();
setInterval(refresh, REFRESH_MS);
