// citeline web page: plain DOM, no framework, no CDN.
// Everything that comes from a document (quotes, titles, file names, reasons)
// is inserted with textContent / text nodes, never as HTML.
"use strict";

const $ = (sel) => document.querySelector(sel);
const KEY_STORAGE = "citeline.apiKey";
const POLL_BUSY_MS = 1000; // while something is pending/indexing: states change within seconds
const POLL_IDLE_MS = 5000; // otherwise: notice uploads from other clients without hammering
const SEARCH_K = 20; // hits a search shows: the API's default, what `citeline search` prints
let current = null; // selected collection name
let pollTimer = null;
let currentInfo = null; // the selected collection's settings
let asking = null; // the AbortController of the answer being written, if one is
let shownDocs = ""; // the document list as last drawn (redrawn only when it changes)
let pollError = ""; // the error a failed poll showed: the next poll that succeeds clears it

function showInfo(documents, chunks) {
  $("#collection-info").textContent = currentInfo
    ? `strategy ${currentInfo.strategy} · threshold ${currentInfo.threshold} · ${documents} documents · ${chunks} chunks`
    : "No collection yet: create one below.";
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function apiKey() { return sessionStorage.getItem(KEY_STORAGE) || ""; }

function headers(extra = {}) {
  const h = { ...extra };
  const k = apiKey();
  if (k) h["Authorization"] = "Bearer " + k;
  return h;
}

function showError(msg) {
  const box = $("#error");
  if (!msg) { box.hidden = true; box.textContent = ""; return; }
  box.textContent = msg;
  box.hidden = false;
}

// An error body's message, with each failing field's own message when it names them
// ("invalid request: question" says which field; the detail says what is wrong with it).
function errorText(e) {
  if (!Array.isArray(e.detail) || !e.detail.length) return e.message;
  return e.message + " — " + e.detail.map((d) => (d.field ? d.field + ": " : "") + d.message).join("; ");
}

// fetch() rejects with a bare "Failed to fetch" when no answer came at all (the server
// is stopped, restarting or unreachable): say that, naming the server.
function unreachable() {
  const err = new Error(`cannot reach the server at ${location.host}: is it running?`);
  err.network = true;
  return err;
}

async function send(path, opts) {
  try {
    return await fetch(path, opts);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw unreachable();
  }
}

// A body's bytes; a connection lost while they arrive is said as such ("network error").
async function received(promise, what) {
  try {
    return await promise;
  } catch (e) {
    if (e.name === "AbortError") throw e;
    const err = new Error(`the connection to the server was lost while ${what} arrived`);
    err.network = true;
    throw err;
  }
}

async function api(path, opts = {}) {
  const res = await send(path, { ...opts, headers: headers(opts.headers || {}) });
  const type = res.headers.get("content-type") || "";
  const body = type.includes("application/json") ? await received(res.json(), "the answer") : null;
  if (!res.ok) {
    const e = body && body.error ? body.error
      : { code: String(res.status), message: `HTTP ${res.status} ${res.statusText}`.trim() };
    const err = new Error(errorText(e));
    err.status = res.status;
    err.code = e.code;
    throw err;
  }
  return body;
}

const enc = encodeURIComponent;
const docPath = (doc) => doc.split("/").map(enc).join("/");
const colUrl = (name) => "/api/collections/" + enc(name);

// --- collections ------------------------------------------------------------------------

async function loadVersion() {
  try {
    const v = await api("/api/version");
    $("#version").textContent = `v${v.citeline} · ${v.model.model_id}`;
  } catch (e) { /* the version line is decoration */ }
}

async function loadCollections(select) {
  let data;
  try {
    data = await api("/api/collections");
  } catch (e) {
    showError(e.status === 401 ? "This server needs an API key: paste it above." : e.message);
    if (e.status === 401) forgetShown();
    else if (e.network) {  // the server is down: the page comes back when it does
      clearTimeout(pollTimer);
      pollTimer = setTimeout(() => loadCollections(select), POLL_IDLE_MS);
    }
    return;
  }
  showError("");
  pollError = "";
  const sel = $("#collection");
  sel.replaceChildren();
  for (const c of data.collections) sel.append(el("option", { value: c.name }, c.name));
  $("#create-box").hidden = !data.can_create;
  const names = data.collections.map((c) => c.name);
  const want = select || current || sessionStorage.getItem("citeline.collection");
  current = names.includes(want) ? want : names[0] || null;
  if (current) sel.value = current;
  currentInfo = data.collections.find((c) => c.name === current) || null;
  $("#delete-collection").hidden = !(data.can_create && current);  // deleting takes a '*' write key too
  showInfo(currentInfo ? currentInfo.documents : 0, currentInfo ? currentInfo.chunks : 0);
  await loadDocuments();
}

// A key that is missing, wrong or revoked: nothing the previous key showed stays on
// screen, and nothing is polled until a key is given again.
function forgetShown() {
  clearTimeout(pollTimer);
  current = null;
  currentInfo = null;
  shownDocs = "";
  $("#collection").replaceChildren();
  $("#delete-collection").hidden = true;
  $("#docs tbody").replaceChildren();
  showInfo(0, 0);
  clearAnswer();
}

async function createCollection(ev) {
  ev.preventDefault();
  const body = { name: $("#new-name").value.trim(), strategy: $("#new-strategy").value };
  const t = $("#new-threshold").value;
  if (t) body.threshold = Number(t);
  try {
    await api("/api/collections", {
      method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" },
    });
    $("#new-name").value = "";
    showError("");
    await loadCollections(body.name);
  } catch (e) { showError(e.message); }
}

// The shown collection, its index and its uploaded files, once the user confirms.
async function deleteCollection() {
  const name = current;
  if (!name) return;
  const n = $("#docs tbody").rows.length;
  if (!window.confirm(`Delete the collection ${name}: its index and its ${n} document(s), uploaded files and all?`)) return;
  try {
    await api(colUrl(name), { method: "DELETE" });
  } catch (e) {
    showError(e.message);
    return;
  }
  clearAnswer();  // its citations point into the deleted documents
  if (sessionStorage.getItem("citeline.collection") === name) sessionStorage.removeItem("citeline.collection");
  if (current === name) current = null;
  await loadCollections();
}

// --- documents ----------------------------------------------------------------------------

async function loadDocuments() {
  clearTimeout(pollTimer);
  const tbody = $("#docs tbody");
  if (!current) { tbody.replaceChildren(); return; }
  const asked = current;
  let data;
  try {
    data = await api(colUrl(asked) + "/documents");
  } catch (e) {
    if (asked !== current) return;  // another collection is shown (and polled) meanwhile
    if (e.status === 404 && await collectionGone(asked)) return;
    showError(e.message);
    pollError = e.message;
    if (e.status === 401) forgetShown();  // the key was revoked: show nothing, poll nothing
    else pollTimer = setTimeout(loadDocuments, POLL_IDLE_MS);
    return;
  }
  // another collection was picked while this list was on its way: it is not drawn
  // under that one's name (its rows' buttons would act on the other collection)
  if (asked !== current) return;
  // the server answers again: the error a failed poll showed is over (any other stays)
  if (pollError && $("#error").textContent === pollError) showError("");
  pollError = "";
  const busy = data.documents.some((d) => d.state === "pending" || d.state === "indexing");
  const drawn = JSON.stringify([current, currentInfo && currentInfo.can_write, data.documents]);
  if (drawn !== shownDocs) drawDocuments(tbody, data.documents);
  shownDocs = drawn;
  showInfo(data.documents.length, data.documents.reduce((n, d) => n + (d.chunks || 0), 0));
  pollTimer = setTimeout(loadDocuments, busy ? POLL_BUSY_MS : POLL_IDLE_MS);
}

// A 404 for the shown collection's list: when the server no longer lists it (another
// client deleted it), the page drops it and shows another, saying why, instead of
// polling it and failing every few seconds. When it is still listed (its index folder
// is being built anew), the page goes on polling it.
async function collectionGone(name) {
  let listed;
  try {
    listed = (await api("/api/collections")).collections.map((c) => c.name);
  } catch (e) {
    return false;
  }
  if (listed.includes(name) || name !== current) return false;
  clearAnswer();  // its citations point into the deleted collection's documents
  if (sessionStorage.getItem("citeline.collection") === name) sessionStorage.removeItem("citeline.collection");
  await loadCollections();
  showError(`the collection '${name}' no longer exists: it was deleted`);
  return true;
}

// The rows of the document list; the control that had the keyboard's focus (a name, a
// Retry or a delete button) has it again in the new rows.
function drawDocuments(tbody, documents) {
  const had = tbody.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = had && [had.closest("tr").dataset.document, had.className, had.textContent];
  const rows = documents.map((d) => {
    const image = d.extractor === "image";  // read by OCR: shown as the image, its text under it
    const name = el("button", { class: "open-doc", type: "button",
      title: image ? "show the image and its text" : "show the text",
      onclick: () => openDocument(d.document, null, image) }, d.document);
    const stateCell = el("td", {}, el("span", { class: "state " + d.state, "data-state": d.state }, d.state));
    if (d.reason) stateCell.append(el("span", { class: "reason" }, d.reason));
    const actions = el("td");
    const canWrite = !currentInfo || currentInfo.can_write !== false;  // a read key: no buttons
    if (canWrite && (d.state === "failed" || d.state === "stale")) {
      actions.append(el("button", { type: "button", onclick: () => docAction(d.document, "retry") }, "Retry"));
    }
    if (canWrite) {
      actions.append(el("button", { type: "button", title: "delete", "aria-label": "delete " + d.document,
        onclick: () => docAction(d.document, "delete") }, "✕"));
    }
    return el("tr", { "data-document": d.document }, el("td", { class: "doc" }, name), stateCell,
      el("td", {}, String(d.chunks)), actions);
  });
  tbody.replaceChildren(...rows);
  if (!focusKey) return;
  const row = rows.find((r) => r.dataset.document === focusKey[0]);
  const again = row && [...row.querySelectorAll("button")].find(
    (b) => b.className === focusKey[1] && b.textContent === focusKey[2]);
  if (again) again.focus();
}

async function docAction(doc, action) {
  if (action === "delete" && !window.confirm(`Delete ${doc} and its uploaded file from ${current}?`)) return;
  const url = colUrl(current) + "/documents/" + docPath(doc);
  try {
    if (action === "retry") await api(url + "/retry", { method: "POST" });
    else await api(url, { method: "DELETE" });
    showError("");
  } catch (e) { showError(e.message); }
  await loadDocuments();
}

let sending = []; // the uploads whose bodies are on their way: [{files, bytes}]

// Until the server has the whole body (a big PDF over a slow link: minutes), no
// document of it is listed yet: the note under the drop zone says what is on its way.
function showSending() {
  const note = $("#upload-note");
  const files = sending.reduce((n, u) => n + u.files, 0);
  const mb = sending.reduce((n, u) => n + u.bytes, 0) / 1048576;
  note.textContent = files ? `uploading ${files} file(s), ${mb.toFixed(1)} MB…` : "";
  note.hidden = !files;
}

async function upload(files) {
  if (!current) { showError("Create or pick a collection first."); return; }
  if (!files.length) return;
  const form = new FormData();
  for (const f of files) form.append("files", f, f.name);
  const mine = { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
  sending.push(mine);
  showSending();
  try {
    await api(colUrl(current) + "/documents", { method: "POST", body: form });
    showError("");
  } catch (e) {
    showError(e.message);
  } finally {
    sending = sending.filter((u) => u !== mine);
    showSending();
  }
  await loadDocuments();
}

function setupDrop() {
  const drop = $("#drop");
  drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (ev) => {
    ev.preventDefault();
    drop.classList.remove("over");
    upload([...ev.dataTransfer.files]);
  });
  drop.addEventListener("keydown", (ev) => {  // the drop zone is a button for the keyboard too
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); $("#file-input").click(); }
  });
  $("#file-input").addEventListener("change", (ev) => {
    upload([...ev.target.files]);
    ev.target.value = "";
  });
}

// --- ask ------------------------------------------------------------------------------------

function renderAnswerText(box, text, citations, spans, generated) {
  // "[n]" markers become links to citation rows; the rest stays text nodes. In an
  // extractive answer each shown sentence is followed by its own [n], so the k-th [n]
  // is the k-th span of citation n: its link opens the sentence's own page, cue or range.
  // A generated answer's marker may cite several sources, which the server writes as
  // "[1, 3]" (a model's "[1,3]" or "[1-3]" too): each number is a link. An extractive answer's markers are one number each, so there a "[1, 2]" is
  // the document's own text (code quoted whole), not a citation.
  const re = generated ? /\[(\d+(?:, \d+)*)\]/g : /\[(\d+)\]/g;
  const seen = {};
  const link = (n, label) => {
    const k = seen[n] = (seen[n] || 0) + 1;
    const span = (spans || []).filter((s) => s.citation === n)[k - 1];
    return el("a", { class: "cite-ref", href: "#cite-" + n, "data-n": String(n),
      onclick: (ev) => {
        ev.preventDefault();
        focusCitation(n);
        const c = citations[n - 1];
        if (span) openDocument(span.document, { ...c, location: span.location, locator: span.locator });
      } }, label);
  };
  let last = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    const nums = m[1].split(", ").map(Number);
    box.append(document.createTextNode(text.slice(last, m.index)));
    if (!nums.every((n) => n >= 1 && n <= citations.length)) {
      box.append(document.createTextNode(m[0]));
    } else if (nums.length === 1) {
      box.append(link(nums[0], m[0]));
    } else {
      box.append(document.createTextNode("["));
      nums.forEach((n, i) => {
        if (i) box.append(document.createTextNode(", "));
        box.append(link(n, String(n)));
      });
      box.append(document.createTextNode("]"));
    }
    last = re.lastIndex;
  }
  box.append(document.createTextNode(text.slice(last)));
}

function focusCitation(n) {
  const row = document.getElementById("cite-" + n);
  if (!row) return;
  row.scrollIntoView({ block: "nearest" });
  row.classList.add("flash");
  setTimeout(() => row.classList.remove("flash"), 1200);
}

// Reads a Server-Sent Events body (fetch, since EventSource cannot POST or send a
// key) and calls onEvent(name, data) for each event as it arrives.
async function readEvents(res, onEvent) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await received(reader.read(), "the answer");
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}

// The number printed on a cited PDF page, where the file labels its pages otherwise
// (#page=15 of a book whose page 15 reads "1"): what the reader looks for on the page.
// In a message, the pages (slides, sheet range) of an attached file the range spans
// ("in report.pdf, page 3", "in pumps.xlsx, Pumps!A3:C3"): the place to open in it.
function printedPages(loc) {
  let out = "";
  const labels = loc && loc.page_labels;
  if (labels && labels.length) {
    out += ` (printed page${labels.length > 1 ? "s" : ""} ${labels.join(", ")})`;
  }
  for (const a of (loc && loc.attached) || []) {
    if (a.unit === "range") {
      out += ` (in ${a.file}, ${a.range})`;
    } else {
      const many = a.numbers.length > 1 ? "s" : "";
      out += ` (in ${a.file}, ${a.unit}${many} ${runs(a.numbers)})`;
    }
  }
  return out;
}

// Sorted numbers, a run of three or more as first-last: "3, 4, 7-9" (as the CLI says them).
function runs(numbers) {
  const out = [];
  for (let i = 0; i < numbers.length;) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    if (j - i >= 2) out.push(`${numbers[i]}-${numbers[j]}`);
    else out.push(...numbers.slice(i, j + 1).map(String));
    i = j + 1;
  }
  return out.join(", ");
}

function renderCitations(citations) {
  const table = $("#citations");
  const rows = citations.map((c) => el("tr", { id: "cite-" + c.index, "data-n": String(c.index),
      onclick: () => openCitation(c) },
    el("td", {}, `[${c.index}]`),
    el("td", { class: "doc" }, el("button", { class: "open-doc", type: "button" }, c.title || c.document),
      el("span", { class: "reason" }, c.document)),
    el("td", {}, c.section),
    el("td", { class: "loc" }, c.locator + printedPages(c.location)),
    el("td", { class: "quote" }, c.quote),
    el("td", { class: "dist" }, c.distance === null || c.distance === undefined ? "—" : c.distance.toFixed(3))));
  table.querySelector("tbody").replaceChildren(...rows);
  table.hidden = citations.length === 0;
}

function renderAnswer(box, a) {
  box.replaceChildren();
  box.dataset.refused = String(a.refused);
  if (a.refused) {
    box.className = "answer refusal";
    box.append(el("div", { id: "refusal-line" }, a.answer));
    const near = a.nearest_distance === null ? "no chunk at all" : a.nearest_distance.toFixed(3);
    box.append(el("div", { class: "muted", id: "nearest" }, `nearest distance: ${near} (threshold ${a.threshold})`));
    $("#citations").hidden = true;
    return;
  }
  box.className = "answer";
  renderAnswerText(box, a.answer, a.citations, a.spans, a.generator !== "extractive");
  if (a.error) box.append(el("div", { class: "error" }, "the generator failed: " + a.error));
  renderChecks(box, a);
  if (a.documents) {
    box.append(el("div", { class: "muted", id: "answer-scope" },
      `from ${a.documents.length} document(s) only: ${a.documents.slice(0, 5).join(", ")}`
      + (a.documents.length > 5 ? ` and ${a.documents.length - 5} more` : "")));
  }
  renderCitations(a.citations);
}

// What the server's check of a generator's text found (the CLI prints the same notes).
function renderChecks(box, a) {
  if (a.cut_off) {
    box.append(el("div", { class: "warning", id: "cut-off" }, `This answer is incomplete: ${a.cut_off}.`));
  }
  if (a.cites_nothing) {
    box.append(el("div", { class: "warning", id: "cites-nothing" },
      `This answer cites none of its ${a.citations.length} sources: nothing in it can be checked against them.`));
  }
  const notes = [];
  if (a.uncited_sentences.length && !a.cites_nothing) {
    notes.push(`${a.uncited_sentences.length} sentence(s) without a citation`);
  }
  if (a.invalid_markers.length) notes.push(`removed ${a.invalid_markers.length} marker(s) with no source`);
  if (a.stripped_links.length) notes.push(`removed ${a.stripped_links.length} link(s) the answer wrote`);
  if (notes.length) box.append(el("div", { class: "muted checks", id: "answer-checks" }, "note: " + notes.join("; ")));
}

// Ask and Search share one place on the page: a new one drops the one still running,
// and one that fails leaves nothing of itself there, neither its text nor its sources.
async function runQuery(work) {
  if (asking) asking.abort();
  const ctl = new AbortController();
  asking = ctl;
  const box = $("#answer");
  box.hidden = false;
  box.className = "answer";
  box.dataset.state = "asking";
  box.textContent = "…";
  $("#citations").hidden = true;
  try {
    await work(ctl, box);
    if (!ctl.signal.aborted) showError("");
  } catch (e) {
    if (ctl.signal.aborted) return;  // replaced by a newer question, or the collection changed
    box.textContent = "";
    box.hidden = true;
    $("#citations").hidden = true;
    $("#citations tbody").replaceChildren();
    showError(e.message);
    if (e.status === 401) forgetShown();
  } finally {
    if (asking === ctl) asking = null;
  }
  if (!ctl.signal.aborted) box.dataset.state = "done";
}

// The "only in" field: the document filter as the API takes it (a list of paths, folders
// and globs), or null for every document. Commas separate entries (a file name with a
// comma in it is named by a glob: "a?b.md").
function onlyIn() {
  const entries = $("#only-in").value.split(",").map((p) => p.trim()).filter((p) => p);
  return entries.length ? entries : null;
}

// A request body with the filter when there is one (none: the body of a page without it).
function withFilter(body) {
  const documents = onlyIn();
  return documents ? { ...body, documents } : body;
}

async function ask(ev) {
  ev.preventDefault();
  const q = $("#question").value.trim();
  if (!q || !current) return;
  await runQuery(async (ctl, box) => {
    // Streamed: the citations show as soon as retrieval has kept them, the text as
    // the generator writes it; the final "done" answer replaces the streamed text
    // (it is authoritative: markers that match no source are removed at the end).
    const res = await send(colUrl(current) + "/ask", {
      method: "POST", body: JSON.stringify(withFilter({ question: q, stream: true })), signal: ctl.signal,
      headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    });
    if (!res.ok) {
      const json = (res.headers.get("content-type") || "").includes("application/json");
      const body = json ? await received(res.json(), "the answer") : null;
      const err = new Error(body && body.error ? errorText(body.error)
        : `HTTP ${res.status} ${res.statusText}`.trim());
      err.status = res.status;
      throw err;
    }
    let streamed = "";
    let ended = false;  // a done or an error event came: the stream is whole
    await readEvents(res, (name, data) => {
      if (ctl.signal.aborted) return;
      if (name === "citations") {
        if (!data.refused) renderCitations(data.citations);
      } else if (name === "answer") {
        streamed += data.text;
        box.textContent = streamed;
      } else if (name === "done") {
        ended = true;
        renderAnswer(box, data);
      } else if (name === "error") {
        ended = true;
        throw new Error(data.error.message);
      }
    });
    // A body that ends with neither (a proxy's timeout, a server stopped) holds part of
    // an answer whose markers were never checked: it is not shown as the answer.
    if (!ended && !ctl.signal.aborted) {
      throw new Error("the answer was cut off: its stream ended before the server finished it");
    }
  });
}

// Search without generation: the passages that match, best first, with their locators
// and distances, in the sources table; clicking one opens it as a citation does.
async function search() {
  const q = $("#question").value.trim();
  if (!q || !current) return;
  const only = $("#only-in").value.trim();
  await runQuery(async (ctl, box) => {
    const data = await api(colUrl(current) + "/search", {
      method: "POST", body: JSON.stringify(withFilter({ query: q, k: SEARCH_K })), signal: ctl.signal,
      headers: { "Content-Type": "application/json" },
    });
    if (ctl.signal.aborted) return;
    const n = data.hits.length;
    const where = data.documents ? `the ${data.documents.length} document(s) matching “${only}”` : current;
    box.replaceChildren(el("div", { class: "muted", id: "search-line" }, n
      ? `${n} passage(s) for “${q}”, best first (a search: no answer is written)`
      : `nothing in ${where} matches “${q}”`));
    renderCitations(data.hits.map((h) => ({
      index: h.rank, document: h.document, title: h.title, section: h.section,
      locator: h.locator, location: h.location, quote: h.content, distance: h.distance,
    })));
  });
}

function clearAnswer() {
  if (asking) { asking.abort(); asking = null; }
  const box = $("#answer");
  box.replaceChildren();
  box.hidden = true;
  $("#citations").hidden = true;
  $("#citations tbody").replaceChildren();
  closeViewer();
}

// --- document view --------------------------------------------------------------------------

let viewing = 0; // the latest view asked for: a slower, earlier one that arrives later is dropped
let viewUrl = null; // the blob: URL of the file shown, freed once the viewer shows anything else

function showView(nodes, url = null) {
  if (viewUrl && viewUrl !== url) URL.revokeObjectURL(viewUrl);
  viewUrl = url;
  $("#viewer-body").replaceChildren(...nodes);
}

// Closing empties the viewer: a recording stops playing, its file's memory is freed.
function closeViewer() {
  viewing++;
  showView([]);
  $("#viewer").hidden = true;
}

// A new view takes the viewer. The function returned tells whether a later one (or a
// close) has taken it since, freeing the blob: URL given when it has.
function claimView() {
  const mine = ++viewing;
  return (url) => {
    if (mine === viewing) return false;
    if (url) URL.revokeObjectURL(url);
    return true;
  };
}

// The document's file (`what`: "/file"; "/image?page=N", a page of an image as PNG) as a
// blob: URL, if the server sends it as a type `allowed` takes; and the response's headers.
async function fetchBlob(doc, allowed, what = "/file") {
  const res = await send(colUrl(current) + "/documents/" + docPath(doc) + what, { headers: headers() });
  if (!res.ok) throw new Error(`cannot open ${doc} (HTTP ${res.status})`);
  const type = (res.headers.get("content-type") || "").split(";")[0];
  if (!allowed(type)) throw new Error(`${doc}: unexpected file type ${type}`);
  // The blob's type is set here, from an allow-list: a blob: URL is same-origin,
  // so it must never be something the browser would run as a page.
  const blob = new Blob([await received(res.arrayBuffer(), doc)], { type });
  return { url: URL.createObjectURL(blob), headers: res.headers };
}

const MEDIA = /\.(mp3|wav|m4a|aac|flac|ogg|oga|opus|weba|mp4|m4v|webm|ogv|mkv|mov|avi)$/i;
// Images a browser shows as they are (the server's /file sends them as their own type);
// any other image (a TIFF; a HEIC, which only Safari shows) is shown as the server's PNG
// of one page.
const BROWSER_IMAGE = /\.(png|jpe?g|jpe|jfif|gif|webp|bmp|avif)(\.(gz|bz2|xz))?$/i;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/avif"];

function openCitation(c) {
  openDocument(c.document, c);
}

// The server counts characters as Python does (code points); a JavaScript string is
// indexed in UTF-16 units, where an emoji or any character beyond U+FFFF takes two.
// Walks from code point `from` (at unit `at`) to code point `point`.
function utf16Index(text, point, from, at) {
  let i = at;
  for (let n = from; n < point && i < text.length; n++) {
    i += text.codePointAt(i) > 0xffff ? 2 : 1;
  }
  return i;
}

// A document in the viewer: `c`, the citation clicked (null from the document list),
// opens it where it points; `image`: the document is an image read by OCR.
async function openDocument(doc, c, image = false) {
  const viewer = $("#viewer");
  const stale = claimView();  // a later click (or a close) may take the viewer meanwhile
  viewer.hidden = false;
  $("#viewer-title").textContent = c ? c.title || doc : doc;
  $("#viewer-where").textContent = c
    ? `${doc} ${c.locator}${printedPages(c.location)} · ${c.section}` : doc;
  showView([el("p", { class: "muted" }, "loading…")]);
  const loc = c ? c.location : null;
  try {
    if ((loc && loc.xywh) || image) {
      await showImage(doc, loc, stale);  // it brings the cited area into view itself
      return;
    }
    if (loc && loc.pages) {
      const { url } = await fetchBlob(doc, (t) => t === "application/pdf");
      if (stale(url)) return;
      showView([el("iframe", { src: url + "#page=" + loc.pages[0], title: doc })], url);
    } else if (loc && loc.t && MEDIA.test(doc)) {  // a recording; a .vtt/.srt shows as text
      const { url } = await fetchBlob(doc, (t) => t.startsWith("audio/") || t.startsWith("video/"));
      if (stale(url)) return;
      const kind = /\.(mp3|wav|ogg|oga|m4a|flac|opus)$/i.test(doc) ? "audio" : "video";
      const media = el(kind, { controls: "", src: `${url}#t=${loc.t[0]},${loc.t[1]}` });
      media.addEventListener("loadedmetadata", () => { media.currentTime = loc.t[0]; });
      showView([media], url);
    } else {
      const data = await api(colUrl(current) + "/documents/" + docPath(doc) + "/text");
      if (stale(null)) return;
      const { pre, mark } = markedText(data.text, loc);
      showView([pre]);
      if (mark) mark.scrollIntoView({ block: "center" });
    }
    viewer.scrollIntoView({ block: "nearest" });
  } catch (e) {
    if (!stale(null)) showView([el("p", { class: "error" }, e.message)]);
  }
}

// The document's text as a <pre>, the cited range (`loc.char`, in code points) in a <mark>;
// `mark` is null when there is no range.
function markedText(text, loc) {
  const pre = el("pre", { id: "doc-text" });
  if (!(loc && loc.char)) {
    pre.textContent = text;
    return { pre, mark: null };
  }
  const s = utf16Index(text, loc.char[0], 0, 0);
  const e = utf16Index(text, loc.char[1], loc.char[0], s);
  const mark = el("mark", { id: "highlight" }, text.slice(s, e));
  pre.append(document.createTextNode(text.slice(0, s)), mark, document.createTextNode(text.slice(e)));
  return { pre, mark };
}

// An image read by OCR: the image (page `at` of a multi-page TIFF, else the cited page,
// else the first), with buttons to its other pages; on the cited page the box the
// citation's lines take (`loc.xywh`, in the image's own pixels) outlined over it; under
// it the text OCR read, the cited range marked. `loc` is null for a document opened
// from the list: the image and its text, nothing marked. The box is placed in percent
// of the image's natural size, so it stays on its lines at any displayed size. `turned`:
// the pager button ("prev", "next") that asked for this page, which keeps the focus.
async function showImage(doc, loc, stale, at = null, turned = null) {
  const cited = loc && loc.xywh ? (loc.pages ? loc.pages[0] : 1) : null;  // the box's page
  const page = at || cited || 1;
  const whole = BROWSER_IMAGE.test(doc) && page === 1;  // else the server's PNG of the page
  const got = await fetchBlob(doc, (t) => IMAGE_TYPES.includes(t),
    whole ? "/file" : "/image?page=" + page);
  const url = got.url;
  if (stale(url)) return;
  const pages = Number(got.headers.get("X-Page-Count")) || 1;  // /file: a one-page image
  const img = el("img", { src: url, alt: `image of ${doc}${pages > 1 ? `, page ${page}` : ""}` });
  let data;
  try {  // the page shown meanwhile stays until this one is ready to take its place
    [data] = await Promise.all([
      api(colUrl(current) + "/documents/" + docPath(doc) + "/text"),
      img.decode().catch(() => { throw new Error(`${doc}: the browser cannot show this image`); }),
    ]);
  } catch (e) {
    URL.revokeObjectURL(url);
    throw e;
  }
  if (stale(url)) return;  // from here the viewer holds the URL, and frees it
  const { pre, mark } = markedText(data.text, loc);
  const frame = el("div", { class: "image-box" }, img);
  let box = null;
  if (page === cited) {
    const [x, y, w, h] = loc.xywh;
    const pct = (v, of) => `${(100 * v) / of}%`;
    box = el("div", { class: "image-mark", id: "image-highlight", role: "img",
      "aria-label": `the cited area: ${w} × ${h} pixels at x ${x}, y ${y}`
        + `${loc.pages ? ` of page ${page}` : ""}; its text is marked below` });
    if (mark) box.setAttribute("aria-describedby", "highlight");
    Object.assign(box.style, { left: pct(x, img.naturalWidth), top: pct(y, img.naturalHeight),
      width: pct(w, img.naturalWidth), height: pct(h, img.naturalHeight) });
    frame.append(box);
  }
  const confidence = !loc || loc.ocr_confidence === null || loc.ocr_confidence === undefined ? ""
    : ` (mean word confidence ${loc.ocr_confidence})`;
  const note = loc ? `The text OCR read from the image${confidence}, the cited lines marked:`
    : `The text OCR read from the image${pages > 1 ? ", every page" : ""}:`;
  const pager = pages > 1 ? imagePager(doc, loc, page, pages) : null;
  showView([...(pager ? [pager] : []), el("div", { class: "image-scroll" }, frame),
    el("p", { class: "muted", id: "ocr-note" }, note), pre], url);
  // each in its own scroll box (both fit in the window under the viewer's title)
  if (mark) mark.scrollIntoView({ block: "nearest" });
  if (box) box.scrollIntoView({ block: "center" });
  $("#viewer").scrollIntoView({ block: "start" });
  if (turned) {  // the button pressed, or the other one once this is the first or last page
    const again = pager.querySelector("." + turned);
    (again.disabled ? pager.querySelector(turned === "next" ? ".prev" : ".next") : again).focus();
  }
}

// Buttons to the previous and next page of a multi-page image, between them which page
// of how many is shown (`loc`: the citation, whose box shows on its own page).
function imagePager(doc, loc, page, pages) {
  const turn = (n, which) => {
    const stale = claimView();
    showImage(doc, loc, stale, n, which).catch((e) => {
      if (!stale(null)) showView([el("p", { class: "error" }, e.message)]);
    });
  };
  const button = (which, label, to) => el("button", { type: "button", class: which,
    "aria-label": `${which === "prev" ? "previous" : "next"} page`,
    ...(to < 1 || to > pages ? { disabled: "" } : {}), onclick: () => turn(to, which) }, label);
  return el("div", { class: "image-pages", role: "group", "aria-label": "pages" },
    button("prev", "‹", page - 1), el("span", { id: "image-page" }, `page ${page} of ${pages}`),
    button("next", "›", page + 1));
}

// --- start ----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("#api-key").value = apiKey();
  $("#key-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(KEY_STORAGE, $("#api-key").value.trim());
    loadCollections();
  });
  $("#collection").addEventListener("change", (ev) => {
    clearAnswer();  // its citations point into the other collection's documents
    current = ev.target.value;
    sessionStorage.setItem("citeline.collection", current);
    loadCollections(current);
  });
  $("#refresh").addEventListener("click", () => loadCollections());
  $("#delete-collection").addEventListener("click", deleteCollection);
  $("#create-form").addEventListener("submit", createCollection);
  $("#ask-form").addEventListener("submit", ask);
  $("#search-btn").addEventListener("click", search);
  $("#viewer-close").addEventListener("click", closeViewer);
  setupDrop();
  loadVersion();
  loadCollections();
});
