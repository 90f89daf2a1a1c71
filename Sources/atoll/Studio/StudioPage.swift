/// The studio's page: one self-contained HTML document (no external assets, works offline)
/// that reads the JSON endpoints. It polls `/api/version` twice a second and reads the classes,
/// the current query and the open object again whenever another process has committed.
///
/// DOM hooks for tests and scripts: `#classes li[data-class]` (with `data-count`), `#predicate`,
/// `#sort`, `#run`, `#results` rows `tr[data-key]`, `#total` (`data-total`), `#error`,
/// `#object` (`data-class`, `data-key`), `a.link` in it, `#version` (`data-version`,
/// `data-reads`).
enum StudioPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Atoll studio</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2733; background: #f6f8fa; }
  header { background: #0b5563; color: white; padding: 10px 16px; display: flex; gap: 16px; align-items: baseline; }
  header h1 { font-size: 17px; margin: 0; }
  header #version { margin-left: auto; font-size: 12px; opacity: .85; }
  main { display: grid; grid-template-columns: 220px 1fr 340px; gap: 12px; padding: 12px; }
  section { background: white; border: 1px solid #d8dee4; border-radius: 6px; padding: 10px; overflow: auto; }
  h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #57606a; margin: 0 0 8px; }
  #classes { list-style: none; margin: 0; padding: 0; }
  #classes li { padding: 4px 6px; border-radius: 4px; cursor: pointer; display: flex; justify-content: space-between; }
  #classes li.selected { background: #ddf4ff; font-weight: 600; }
  #classes li span.count { color: #57606a; font-variant-numeric: tabular-nums; }
  form { display: flex; gap: 6px; margin-bottom: 8px; }
  #predicate { flex: 1; font: 13px ui-monospace, monospace; padding: 5px; }
  #sort { width: 130px; font: 13px ui-monospace, monospace; padding: 5px; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eaeef2; white-space: nowrap; max-width: 260px; overflow: hidden; text-overflow: ellipsis; }
  tbody tr { cursor: pointer; }
  tbody tr:hover { background: #f6f8fa; }
  #error { color: #b42318; margin: 6px 0; min-height: 1em; }
  #pager { display: flex; gap: 8px; align-items: center; margin-top: 8px; }
  #object dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 10px; margin: 0; font-size: 13px; }
  #object dt { color: #57606a; }
  #object dd { margin: 0; word-break: break-all; font-family: ui-monospace, monospace; }
  a.link { color: #0969da; cursor: pointer; text-decoration: underline; }
</style>
</head>
<body>
<header><h1>Atoll studio</h1><span>read-only</span><span id="version" data-version="" data-reads="0">connecting…</span></header>
<main>
  <section><h2>Classes</h2><ul id="classes"></ul></section>
  <section>
    <h2 id="title">Objects</h2>
    <form id="queryform">
      <input id="predicate" placeholder="TRUEPREDICATE" autocomplete="off" spellcheck="false">
      <input id="sort" placeholder="sort: name:desc" autocomplete="off" spellcheck="false">
      <button id="run" type="submit">Run</button>
    </form>
    <div id="error"></div>
    <table><thead id="head"></thead><tbody id="results"></tbody></table>
    <div id="pager"><button id="prev" type="button">‹ Previous</button><span id="total" data-total="">–</span><button id="next" type="button">Next ›</button></div>
  </section>
  <section id="object" data-class="" data-key=""><h2>Object</h2><p>Choose a row, or a link.</p></section>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const state = { cls: null, q: "", sort: "", offset: 0, limit: 50, version: null, object: null, reads: 0 };
const $ = (id) => document.getElementById(id);

async function api(path) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  const response = await fetch(path, { headers, cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function text(value) {
  if (value === null || value === undefined) return "null";
  if (typeof value === "object" && value.$link) return "→ " + value.$link.class + " " + value.$link.label;
  return typeof value === "string" ? value : JSON.stringify(value);
}

function linkElement(ref) {
  const a = document.createElement("a");
  a.className = "link";
  a.textContent = ref.class + " " + ref.label;
  a.dataset.class = ref.class;
  a.dataset.key = ref.key;
  a.addEventListener("click", () => showObject(ref.class, ref.key));
  return a;
}

async function loadClasses() {
  const data = await api("/api/classes");
  const list = $("classes");
  list.replaceChildren();
  for (const c of data.classes) {
    const li = document.createElement("li");
    li.dataset.class = c.name;
    li.dataset.count = c.count;
    if (c.name === state.cls) li.className = "selected";
    const name = document.createElement("span");
    name.textContent = c.name;
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = c.count;
    li.append(name, count);
    li.addEventListener("click", () => { state.cls = c.name; state.offset = 0; loadClasses(); runQuery(); });
    list.append(li);
  }
  if (!state.cls && data.classes.length) { state.cls = data.classes[0].name; list.firstChild.className = "selected"; }
}

async function runQuery() {
  if (!state.cls) return;
  $("title").textContent = state.cls;
  const params = new URLSearchParams({ class: state.cls, q: state.q, sort: state.sort, offset: state.offset, limit: state.limit });
  try {
    const data = await api("/api/query?" + params);
    $("error").textContent = "";
    const head = document.createElement("tr");
    for (const c of data.columns) { const th = document.createElement("th"); th.textContent = c; head.append(th); }
    $("head").replaceChildren(head);
    const rows = data.objects.map((o) => {
      const tr = document.createElement("tr");
      tr.dataset.key = o.key;
      for (const c of data.columns) { const td = document.createElement("td"); td.textContent = text(o.values[c]); tr.append(td); }
      tr.addEventListener("click", () => showObject(o.class, o.key));
      return tr;
    });
    $("results").replaceChildren(...rows);
    const last = data.offset + data.objects.length;
    $("total").dataset.total = data.total;
    $("total").textContent = data.total === 0 ? "no objects" : `${data.offset + 1}–${last} of ${data.total}`;
    $("prev").disabled = data.offset === 0;
    $("next").disabled = last >= data.total;
  } catch (e) {
    $("error").textContent = e.message;
    $("results").replaceChildren();
    $("total").dataset.total = "";
    $("total").textContent = "–";
  }
}

async function showObject(cls, key) {
  state.object = { cls, key };
  const panel = $("object");
  panel.dataset.class = cls;
  panel.dataset.key = key;
  const title = document.createElement("h2");
  title.textContent = "Object";
  try {
    const data = await api("/api/object?" + new URLSearchParams({ class: cls, key }));
    const o = data.object;
    const heading = document.createElement("p");
    heading.textContent = o.class + " " + o.label;
    const dl = document.createElement("dl");
    for (const [name, value] of Object.entries(o.values)) {
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.dataset.property = name;
      const refs = Array.isArray(value) ? value : (value && typeof value === "object" && !value.$link ? Object.values(value) : [value]);
      if (refs.some((r) => r && r.$link)) {
        refs.forEach((r, i) => { if (i) dd.append(", "); dd.append(r && r.$link ? linkElement(r.$link) : text(r)); });
      } else {
        dd.textContent = text(value);
      }
      dl.append(dt, dd);
    }
    panel.replaceChildren(title, heading, dl);
  } catch (e) {
    const p = document.createElement("p");
    p.textContent = e.message;
    panel.replaceChildren(title, p);
  }
}

async function poll() {
  try {
    const { version } = await api("/api/version");
    if (version !== state.version) {
      state.version = version;
      await loadClasses();
      await runQuery();
      if (state.object) await showObject(state.object.cls, state.object.key);
      state.reads += 1;
    }
    $("version").dataset.version = version;
    $("version").dataset.reads = state.reads;
    $("version").textContent = "live · " + version + (version === 1 ? " commit" : " commits") + " seen since opened";
  } catch (e) {
    $("version").textContent = "disconnected: " + e.message;
  }
  setTimeout(poll, 500);
}

$("queryform").addEventListener("submit", (event) => {
  event.preventDefault();
  state.q = $("predicate").value;
  state.sort = $("sort").value;
  state.offset = 0;
  runQuery();
});
$("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - state.limit); runQuery(); });
$("next").addEventListener("click", () => { state.offset += state.limit; runQuery(); });
poll();
</script>
</body>
</html>
"""#
}
