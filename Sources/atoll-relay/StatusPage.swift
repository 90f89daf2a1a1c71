/// The relay's dashboard (`GET /` on the status address): one self-contained page, no build step
/// and no external assets, so it works offline. Every second it reads `/status` (realms, peers,
/// refusals) and `/metrics` (the counters behind the chart), the same documents a monitor reads,
/// and redraws. A token, when the endpoint needs one, comes from the address's fragment
/// (`http://HOST:PORT/#token=...`): browsers never send the fragment, and the page passes it as
/// `Authorization: Bearer`.
///
/// The chart shows changesets received per second and the mean fan-out latency of each interval,
/// computed from two successive scrapes of `atoll_relay_changesets_received_total` and
/// `atoll_relay_fanout_seconds_sum` / `_count`. Element ids and `data-` attributes are what the
/// browser test reads.
enum StatusPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>atoll-relay</title>
    <style>
    body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2430; background: #f7f8fa; }
    h1 { font-size: 1.3em; margin: 0 0 .2em; }
    h2 { font-size: 1.05em; margin: 1.4em 0 .4em; }
    .meta { color: #5a6473; }
    table { border-collapse: collapse; background: #fff; min-width: 40em; }
    th, td { text-align: left; padding: .25em .7em; border-bottom: 1px solid #e3e6eb; }
    th { background: #eef1f5; font-weight: 600; }
    td.num { text-align: right; font-variant-numeric: tabular-nums; }
    .empty { color: #8a93a0; font-style: italic; }
    .lagging { color: #b3261e; font-weight: 600; }
    .no { color: #8a93a0; }
    #error { color: #b3261e; }
    svg { background: #fff; border: 1px solid #e3e6eb; }
    .legend span { display: inline-block; margin-right: 1.2em; }
    .swatch { display: inline-block; width: .9em; height: .9em; vertical-align: -.1em; margin-right: .3em; }
    code { font-size: .92em; }
    </style>
    </head>
    <body>
    <h1>atoll-relay</h1>
    <div class="meta"><span id="relay">connecting…</span> · updated <span id="polls" data-polls="0">0</span> times <span id="error"></span></div>

    <h2>Realms</h2>
    <table id="realms"><thead><tr><th>Realm</th><th>Head</th><th>Trimmed through</th><th>Log size (operations)</th><th>Schema</th><th>Peers connected</th></tr></thead><tbody></tbody></table>

    <h2>Connected peers</h2>
    <table id="peers"><thead><tr><th>Peer</th><th>Identity</th><th>Address</th><th>Connected</th><th>Lag (operations)</th><th>Lag (s)</th></tr></thead><tbody></tbody></table>

    <h2>Nodes by realm</h2>
    <table id="nodes"><thead><tr><th>Realm</th><th>Node</th><th>Name</th><th>Connected</th><th>Acknowledged</th><th>Lag (operations)</th><th>Lag (s)</th><th>Last acknowledgement</th></tr></thead><tbody></tbody></table>

    <h2>Activity</h2>
    <div class="legend"><span><i class="swatch" style="background:#2f6fdf"></i>changesets received per second (max <b id="rate-max">0</b>)</span><span><i class="swatch" style="background:#e07b00"></i>mean fan-out latency, ms (max <b id="latency-max">0</b>)</span></div>
    <svg id="chart" width="720" height="180" viewBox="0 0 720 180" role="img" aria-label="changesets per second and fan-out latency">
      <g stroke="#e3e6eb" stroke-width="1">
        <line x1="8" y1="8" x2="712" y2="8"></line><line x1="8" y1="49" x2="712" y2="49"></line>
        <line x1="8" y1="90" x2="712" y2="90"></line><line x1="8" y1="131" x2="712" y2="131"></line>
        <line x1="8" y1="172" x2="712" y2="172" stroke="#b8bec8"></line>
      </g>
      <polyline id="rate-line" fill="none" stroke="#2f6fdf" stroke-width="2" points=""></polyline>
      <polyline id="latency-line" fill="none" stroke="#e07b00" stroke-width="2" points=""></polyline>
    </svg>
    <div class="meta" id="chart-samples" data-samples="0">0 samples</div>

    <h2>Refusals</h2>
    <table id="refusals"><thead><tr><th>Time</th><th>Stage</th><th>Peer</th><th>Address</th><th>Reason</th><th>Message</th></tr></thead><tbody></tbody></table>

    <script>
    "use strict";
    const token = new URLSearchParams(location.hash.slice(1)).get("token");
    const headers = token ? { Authorization: "Bearer " + token } : {};
    const samples = [];
    const samplesMax = 120;
    let previous = null;
    let polls = 0;

    function cell(row, text, className) {
      const td = document.createElement("td");
      td.textContent = text;
      if (className) td.className = className;
      row.appendChild(td);
      return td;
    }

    function fill(tableId, items, columns, keyOf) {
      const body = document.querySelector("#" + tableId + " tbody");
      body.replaceChildren();
      if (items.length === 0) {
        const row = body.insertRow();
        const td = cell(row, "none", "empty");
        td.colSpan = columns;
        return;
      }
      for (const item of items) {
        const row = body.insertRow();
        keyOf(row, item);
      }
    }

    function ago(seconds) {
      if (seconds === null || seconds === undefined) return "—";
      return seconds < 1 ? "just now" : seconds.toFixed(1) + " s ago";
    }

    function render(status) {
      document.getElementById("relay").textContent =
        status.listen + " · up " + status.uptimeSeconds.toFixed(0) + " s · " + status.service;
      fill("realms", status.realms, 6, (row, realm) => {
        row.dataset.realm = realm.id;
        row.dataset.head = realm.head;
        cell(row, realm.id);
        cell(row, realm.head, "num head");
        cell(row, realm.trimmedThrough, "num");
        cell(row, realm.operations, "num");
        cell(row, realm.schema ? realm.schema.slice(0, 16) : "—");
        cell(row, realm.peers.filter(p => p.connected).length, "num");
      });
      fill("peers", status.peers, 6, (row, peer) => {
        row.dataset.peer = peer.name;
        cell(row, peer.name);
        cell(row, peer.identity || peer.authentication);
        cell(row, peer.address);
        cell(row, peer.connectedSeconds.toFixed(0) + " s", "num");
        cell(row, peer.lagOperations ?? "—", "num lag-ops");
        cell(row, peer.lagSeconds === null || peer.lagSeconds === undefined ? "—" : peer.lagSeconds.toFixed(2), "num lag-s");
      });
      const nodes = status.realms.flatMap(realm => realm.peers.map(peer => ({ realm: realm.id, ...peer })));
      fill("nodes", nodes, 8, (row, node) => {
        row.dataset.node = node.name || node.node;
        row.dataset.lagOps = node.lagOperations;
        cell(row, node.realm);
        cell(row, node.node.slice(0, 12));
        cell(row, node.name || "—");
        cell(row, node.connected ? "yes" : "no", node.connected ? "" : "no");
        cell(row, node.acknowledged, "num");
        cell(row, node.lagOperations, "num lag-ops" + (node.lagOperations > 0 ? " lagging" : ""));
        cell(row, node.lagSeconds.toFixed(2), "num lag-s");
        cell(row, ago(node.lastAcknowledgedSecondsAgo));
      });
      const refusals = (status.refusals || []).slice().reverse();
      fill("refusals", refusals, 6, (row, r) => {
        row.dataset.reason = r.reason;
        cell(row, new Date(r.time * 1000).toLocaleTimeString());
        cell(row, r.stage);
        cell(row, r.peer || "—");
        cell(row, r.address);
        cell(row, r.reason);
        cell(row, r.message);
      });
    }

    // Prometheus text: sums each metric name over its label sets.
    function parseMetrics(text) {
      const totals = {};
      for (const line of text.split("\n")) {
        if (line === "" || line.startsWith("#")) continue;
        const match = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/);
        if (!match) continue;
        totals[match[1]] = (totals[match[1]] || 0) + Number(match[3]);
      }
      return totals;
    }

    function chart(metrics) {
      const now = performance.now() / 1000;
      const current = {
        time: now,
        changesets: metrics["atoll_relay_changesets_received_total"] || 0,
        fanoutSum: metrics["atoll_relay_fanout_seconds_sum"] || 0,
        fanoutCount: metrics["atoll_relay_fanout_seconds_count"] || 0,
      };
      if (previous && current.time > previous.time) {
        const seconds = current.time - previous.time;
        const count = current.fanoutCount - previous.fanoutCount;
        samples.push({
          rate: Math.max(0, (current.changesets - previous.changesets) / seconds),
          latency: count > 0 ? 1000 * (current.fanoutSum - previous.fanoutSum) / count : 0,
        });
        if (samples.length > samplesMax) samples.shift();
      }
      previous = current;
      const width = 720, height = 180, pad = 8;
      const rateMax = Math.max(1, ...samples.map(s => s.rate));
      const latencyMax = Math.max(1, ...samples.map(s => s.latency));
      // Oldest sample at the left edge; the newest at the right once two minutes have gathered.
      const span = Math.max(1, Math.min(samplesMax, Math.max(30, samples.length)) - 1);
      const x = i => pad + (width - 2 * pad) * (i / span);
      const y = (v, max) => height - pad - (height - 2 * pad) * (v / max);
      document.getElementById("rate-line").setAttribute("points", samples.map((s, i) => x(i) + "," + y(s.rate, rateMax)).join(" "));
      document.getElementById("latency-line").setAttribute("points", samples.map((s, i) => x(i) + "," + y(s.latency, latencyMax)).join(" "));
      document.getElementById("rate-max").textContent = rateMax.toFixed(1);
      document.getElementById("latency-max").textContent = latencyMax.toFixed(2);
      const label = document.getElementById("chart-samples");
      label.dataset.samples = samples.length;
      label.textContent = samples.length + " samples, one a second";
    }

    async function fetchOK(path, as) {
      const response = await fetch(path, { headers, cache: "no-store" });
      if (!response.ok) throw new Error(path + ": HTTP " + response.status + (response.status === 401 ? " (open this page as /#token=TOKEN)" : ""));
      return as === "json" ? response.json() : response.text();
    }

    async function poll() {
      try {
        const [status, metrics] = await Promise.all([fetchOK("/status", "json"), fetchOK("/metrics", "text")]);
        render(status);
        chart(parseMetrics(metrics));
        polls += 1;
        const counter = document.getElementById("polls");
        counter.dataset.polls = polls;
        counter.textContent = polls;
        document.getElementById("error").textContent = "";
      } catch (error) {
        document.getElementById("error").textContent = "· " + error.message;
      }
      setTimeout(poll, 1000);
    }
    poll();
    </script>
    </body>
    </html>
    """#
}
