// Blindfold's operator console: reviews held for a human, trajectories and modes. Plain
// JavaScript, no framework and nothing fetched from anywhere but this daemon. Every node is built
// with textContent (data never becomes markup); state changes carry the session's CSRF token.
"use strict";

const state = { csrf: null, reviews: [], approvalTtl: 3600, events: null, trajectoryFeed: null, view: null };

// ---- small helpers -------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function $(id) {
  return document.getElementById(id);
}

function ago(ms) {
  if (!ms) return "";
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return Math.round(s / 86400) + " d ago";
}

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : "";
}

function identity(id) {
  if (!id) return "";
  return [id.model, id.family, id.tier, id.provider].filter(Boolean).join(" / ");
}

function flash(text, bad) {
  const f = $("flash");
  f.textContent = text;
  f.className = bad ? "flash bad" : "flash";
  f.hidden = false;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { f.hidden = true; }, 4000);
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(path, options) {
  const opts = { method: "GET", credentials: "same-origin", headers: {} , ...(options || {}) };
  if (opts.body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(opts.body);
  }
  if (opts.method !== "GET" && state.csrf) opts.headers["X-CSRF-Token"] = state.csrf;
  const response = await fetch("/console/api/" + path, opts);
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    if (response.status === 401 && path !== "login") showLogin();
    throw new ApiError(response.status, (data && data.error) || response.statusText);
  }
  return data;
}

// ---- login -----------------------------------------------------------------------------------

function showLogin(message) {
  state.csrf = null;
  closeFeeds();
  $("nav").hidden = true;
  $("logout").hidden = true;
  $("live").hidden = true;
  $("view").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  $("login-token").focus();
}

async function login(event) {
  event.preventDefault();
  const token = $("login-token").value.trim();
  try {
    const answer = await api("login", { method: "POST", body: { token } });
    state.csrf = answer.csrf;
    $("login-token").value = "";
    await start();
  } catch (e) {
    $("login-error").textContent = e.message;
  }
}

async function logout() {
  try {
    await api("logout", { method: "POST", body: {} });
  } catch (_) {
    // The session is gone either way.
  }
  showLogin("Logged out.");
}

async function start() {
  const session = await api("session");
  state.csrf = session.csrf;
  state.approvalTtl = session.approval_ttl_s || 3600;
  state.approvals = session.approvals;
  $("login").hidden = true;
  $("nav").hidden = false;
  $("logout").hidden = false;
  $("view").hidden = false;
  openReviewFeed();
  route();
}

// ---- live feeds ------------------------------------------------------------------------------

function closeFeeds() {
  if (state.events) state.events.close();
  state.events = null;
  closeTrajectoryFeed();
}

function closeTrajectoryFeed() {
  if (state.trajectoryFeed) state.trajectoryFeed.close();
  state.trajectoryFeed = null;
}

function openReviewFeed() {
  if (state.events) return;
  const source = new EventSource("/console/api/events");
  source.addEventListener("open", () => { $("live").hidden = false; });
  source.addEventListener("reviews", (event) => {
    const data = JSON.parse(event.data);
    if (data.error) return flash(data.error, true);
    state.reviews = data.reviews || [];
    updateCount();
    if (state.view === "reviews") renderReviews();
    if (state.view === "review") markAnswered();
  });
  source.addEventListener("error", () => {
    $("live").hidden = true;
    // A closed feed after the session ended: find out, and ask for a login if so.
    if (source.readyState === EventSource.CLOSED) {
      state.events = null;
      api("session").then(() => setTimeout(openReviewFeed, 1000)).catch(() => {});
    }
  });
  state.events = source;
}

function updateCount() {
  const count = $("pending-count");
  count.textContent = String(state.reviews.length);
  count.className = state.reviews.length ? "count some" : "count";
}

// ---- routing ---------------------------------------------------------------------------------

function route() {
  if (!state.csrf) return;
  closeTrajectoryFeed();
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  const [page, ...rest] = hash.split("/");
  const id = rest.join("/");
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.dataset.view === (page || "reviews"));
  }
  const view = $("view");
  view.replaceChildren();
  if (page === "trajectories" && id) return showTrajectory(id);
  if (page === "trajectories") return showTrajectories();
  if (page === "modes") return showModes();
  if (page === "reviews" && id) return showReview(id);
  state.view = "reviews";
  renderReviews();
}

// ---- reviews ---------------------------------------------------------------------------------

function reasonBadge(reason) {
  return el("span", { class: "badge red", text: reason });
}

function renderReviews() {
  const view = $("view");
  const rows = state.reviews.map((r) =>
    el("tr", { class: "link", "data-review": r.id, onclick: () => { location.hash = "#/reviews/" + r.id; } },
      el("td", {}, el("a", { href: "#/reviews/" + r.id, class: "mono", text: r.id })),
      el("td", { text: r.summary }),
      el("td", {}, reasonBadge(r.reason)),
      el("td", { class: "mono", text: r.check }),
      el("td", { class: "mono", text: r.trajectory }),
      el("td", { title: when(r.created_ms), text: ago(r.created_ms) })));
  const table = rows.length
    ? el("table", { id: "review-list" },
      el("thead", {}, el("tr", {}, ["Review", "Action", "Reason", "Check", "Trajectory", "Held"].map((h) => el("th", { text: h })))),
      el("tbody", {}, rows))
    : el("p", { id: "review-list", class: "empty", text: "Nothing is waiting for a human." });
  view.replaceChildren(
    el("div", { class: "head" }, el("h1", { text: "Held for review" }),
      el("span", { class: "muted", text: "Actions the rules left to a human. New ones appear here as they are held." })),
    el("div", { class: "card" }, table));
}

function kv(pairs) {
  return el("dl", { class: "kv" }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== "")
    .flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, v instanceof Node ? v : String(v))]));
}

function artifactBlock(item) {
  if (item.artifact_text !== undefined && item.artifact_text !== null) {
    return el("pre", { class: "artifact", id: "artifact", text: item.artifact_text });
  }
  if (item.artifact_base64) return el("p", { class: "muted", text: "Binary artifact (" + item.artifact_len + " bytes)." });
  return el("p", { class: "muted", text: "Too large to keep: only its digest is bound." });
}

function diffBlock(diff) {
  if (!diff || !diff.lines) {
    return el("p", { id: "diff", class: "muted", text: (diff && diff.note) || "No earlier approval to compare with." });
  }
  const lines = diff.lines.map((l) => el("div", { class: l.tag },
    el("span", { class: "n", text: l.tag === "insert" ? "" : (l.old || "") }),
    el("span", { class: "n", text: l.tag === "delete" ? "" : (l.new || "") }),
    l.text));
  return el("div", {},
    el("p", { class: "muted" }, "Against ", el("a", { href: "#/reviews/" + diff.against, class: "mono", text: diff.against }),
      ", approved " + when(diff.approved_ms) + (diff.same_bytes ? " — the same bytes." : ".")),
    el("div", { class: "diff", id: "diff" }, lines));
}

function disputesBlock(item) {
  if (!item.disputes.length) return el("p", { id: "disputes", class: "muted", text: "No refutation stands against it." });
  const seen = new Set();
  const cards = [];
  for (const d of item.disputes) {
    const key = d.evidence + "\u0000" + (d.text || "");
    if (seen.has(key)) continue;
    seen.add(key);
    const targets = item.disputes.filter((x) => x.evidence === d.evidence).map((x) => x.target);
    cards.push(el("div", { class: "refutation" },
      el("div", {}, el("span", { class: "who", text: d.by }),
        el("span", { class: "muted", text: "  " + identity(d.by_true) + " · found " + d.via + " · " + d.evidence })),
      el("div", { class: "muted mono", text: "disputes " + [...new Set(targets)].join(", ") }),
      el("blockquote", { class: "refuting-text", text: d.text || "(the answer's text was not kept)" })));
  }
  return el("div", { id: "disputes" }, cards);
}

function evidenceBlock(item) {
  if (!item.evidence.length) return el("p", { class: "muted", text: "No evidence recorded for it." });
  return el("table", {},
    el("thead", {}, el("tr", {}, ["Evidence", "From", "Channel", "State", "Relations"].map((h) => el("th", { text: h })))),
    el("tbody", {}, item.evidence.map((e) => el("tr", {},
      el("td", { class: "mono", text: e.evidence_id }),
      el("td", {}, e.producer, el("div", { class: "muted", text: identity(e.producer_true) })),
      el("td", { text: e.channel }),
      el("td", { text: e.lifecycle_state }),
      el("td", { text: (e.relations || []).map((r) => r.relation + " " + r.claim_or_proposal_id).join(", ") })))));
}

async function showReview(id) {
  state.view = "review";
  state.reviewId = id;
  const view = $("view");
  let item;
  try {
    item = await api("reviews/" + encodeURIComponent(id));
  } catch (e) {
    view.replaceChildren(el("div", { class: "card" }, el("p", { class: "error", text: e.message })));
    return;
  }
  if (state.reviewId !== id) return;
  const d = item.decision || {};
  const pending = item.status === "pending";
  const ttl = el("input", { id: "approve-ttl", type: "number", min: "1", value: String(state.approvalTtl) });
  const note = el("textarea", { id: "reject-note", placeholder: "Why (kept with the item and in the trace)" });
  const approveButton = el("button", { id: "approve", class: "approve", type: "button", disabled: !pending || !state.approvals,
    onclick: () => answer(id, "approve", { ttl_s: Number(ttl.value) || undefined }) }, "Approve exactly this action");
  const rejectButton = el("button", { id: "reject", class: "reject", type: "button", disabled: !pending,
    onclick: () => answer(id, "reject", { note: note.value }) }, "Reject");
  const grant = item.grant || {};
  view.replaceChildren(
    el("div", { class: "head" },
      el("h1", { id: "review-title", text: item.summary }),
      el("span", { id: "review-status", class: pending ? "badge amber" : "badge", text: item.status }),
      el("span", { class: "muted mono", text: item.id })),
    el("div", { class: "grid2" },
      el("div", { class: "card" }, el("h2", { text: "Proposed action" }), kv([
        ["asked by", el("span", {}, item.actor_alias, el("span", { class: "muted", text: "  " + identity(item.actor_true) }))],
        ["tool", item.tool + " (" + item.effect + ")"],
        ["target", el("code", { text: item.proposal.target })],
        ["trajectory", el("a", { href: "#/trajectories/" + item.trajectory, class: "mono", text: item.trajectory })],
        ["fingerprint", el("code", { id: "fingerprint", text: item.fingerprint })],
        ["artifact", item.artifact_len + " bytes, sha256 " + item.artifact_sha256],
        ["other arguments", el("code", { text: JSON.stringify(item.args) })],
      ]), artifactBlock(item)),
      el("div", { class: "card" }, el("h2", { text: "Why it is held" }), kv([
        ["reason", reasonBadge(d.reason)],
        ["check", d.check + " (" + d.layer + ")"],
        ["detail", d.detail],
        ["held", when(item.created_ms)],
        ["expires", when(item.expires_ms)],
      ]), el("h2", { class: "gap", text: "The grant an approval issues" }), kv([
        ["binds", grant.task_id + " · " + grant.operation + " · " + grant.target],
        ["artifact sha256", el("code", { text: grant.artifact_sha256 })],
        ["other args sha256", el("code", { text: grant.args_sha256 })],
        ["uses", "once, for review " + grant.review_id],
        ["signed by", grant.kid ? el("code", { text: grant.kid }) : "no approval key"],
      ]))),
    el("div", { class: "card" }, el("h2", { text: "Refuting answers" }), disputesBlock(item)),
    el("div", { class: "card" }, el("h2", { text: "Diff against the earlier approval" }), diffBlock(item.diff)),
    el("div", { class: "card" }, el("h2", { text: "Evidence it rests on" }), evidenceBlock(item)),
    el("div", { class: "card" }, el("h2", { text: "Answer" }), el("div", { class: "actions" },
      el("div", {}, el("label", { for: "approve-ttl", text: "Grant lifetime (seconds)" }), ttl, " ", approveButton),
      el("div", {}, el("label", { for: "reject-note", text: "Note" }), note, rejectButton)),
    el("p", { id: "answered", class: "muted", hidden: pending }, item.status === "pending" ? "" : "Answered: " + item.status + (item.note ? " — " + item.note : ""))));
}

function markAnswered() {
  if (!state.reviewId || state.reviews.some((r) => r.id === state.reviewId)) return;
  const status = $("review-status");
  if (status && status.textContent === "pending") {
    status.textContent = "answered";
    status.className = "badge";
    for (const id of ["approve", "reject"]) if ($(id)) $(id).disabled = true;
  }
}

async function answer(id, how, payload) {
  for (const b of ["approve", "reject"]) if ($(b)) $(b).disabled = true;
  try {
    const result = await api("reviews/" + encodeURIComponent(id) + "/" + how, { method: "POST", body: payload });
    flash(how === "approve" ? "Approved " + id + " (grant " + result.jti + ")." : "Rejected " + id + ".");
    location.hash = "#/reviews";
  } catch (e) {
    flash(e.message, true);
    for (const b of ["approve", "reject"]) if ($(b)) $(b).disabled = false;
  }
}

// ---- trajectories ----------------------------------------------------------------------------

function pct(x) {
  return x === null || x === undefined ? "n/a" : (Math.round(x * 1000) / 10) + " %";
}

async function showTrajectories() {
  state.view = "trajectories";
  const view = $("view");
  let data;
  try {
    data = await api("trajectories");
  } catch (e) {
    view.replaceChildren(el("div", { class: "card" }, el("p", { class: "error", text: e.message })));
    return;
  }
  const rows = data.trajectories.map((t) => el("tr", { class: "link", "data-trajectory": t.trajectory,
    onclick: () => { location.hash = "#/trajectories/" + encodeURIComponent(t.trajectory); } },
  el("td", {}, el("a", { class: "mono", href: "#/trajectories/" + encodeURIComponent(t.trajectory), text: t.trajectory })),
  el("td", { text: t.live ? "live" : "" }),
  el("td", { text: t.mode || "" }),
  el("td", { text: String(t.decisions) }),
  el("td", {}, t.blocked ? el("span", { class: "badge red", text: String(t.blocked) }) : "0"),
  el("td", {}, t.contradicted ? el("span", { class: t.captured ? "badge red" : "badge green", text: t.captured ? "V(τ) = 1" : "V(τ) = 0" }) : el("span", { class: "muted", text: "—" })),
  el("td", { title: when(t.last_ts), text: ago(t.last_ts) })));
  view.replaceChildren(
    el("div", { class: "head" }, el("h1", { text: "Trajectories" }),
      el("span", { class: "muted", text: "From the recent trace and the live set." })),
    el("div", { class: "card stats" },
      el("div", {}, el("b", { text: pct(data.car) }), "CAR (captured authority rate)"),
      el("div", {}, el("b", { text: pct(data.execute_car) }), "execute-CAR"),
      el("div", {}, el("b", { text: String(data.contradicted) }), "with contradicting evidence"),
      el("div", {}, el("b", { text: String(data.trajectories.length) }), "trajectories")),
    el("div", { class: "card" }, rows.length ? el("table", { id: "trajectory-list" },
      el("thead", {}, el("tr", {}, ["Trajectory", "", "Mode", "Decisions", "Blocked", "V(τ)", "Last"].map((h) => el("th", { text: h })))),
      el("tbody", {}, rows)) : el("p", { class: "empty", text: "No trajectory in the recent trace." })));
}

function recordRow(r) {
  const action = r.tool ? r.tool + (r.target && r.target !== r.tool ? ": " + r.target : "") : "";
  const cls = r.blocked ? (r.enforced === false ? "observed" : "blocked") : (r.control ? "control" : "");
  return el("tr", { class: cls, "data-seq": String(r.seq) },
    el("td", { class: "mono seq", text: String(r.seq) }),
    el("td", { text: r.kind }),
    el("td", { class: "who" }, r.actor || "", el("div", { class: "muted small", text: identity(r.actor_true) })),
    el("td", { text: r.stage || r.intent || "" }),
    el("td", { class: "mono action", text: action }),
    el("td", { class: "verdict", text: r.verdict ? r.verdict + (r.enforced === false ? " (observed)" : "") : "" }),
    el("td", { text: r.reason ? r.reason + " · " + (r.check || "") : (r.check || "") }),
    el("td", { class: "muted detail", text: r.detail || "" }));
}

function vectorsBlock(data) {
  const vectors = (data.report && data.report.vectors) || {};
  const legend = new Map((data.legend || []).map((l) => [l.alias, l.true]));
  const names = Object.keys(vectors);
  if (!names.length) return el("p", { class: "muted", text: "No authority transferred yet." });
  const cell = (on) => el("td", { class: on ? "on" : "off", text: on ? "1" : "0" });
  return el("table", { class: "vectors", id: "vectors" },
    el("thead", {}, el("tr", {}, ["Alias", "True identity (operator only)", "scope", "verify", "adopt", "execute"].map((h) => el("th", { text: h })))),
    el("tbody", {}, names.map((n) => el("tr", {},
      el("td", { class: "mono", text: n }), el("td", { text: identity(legend.get(n)) || "—" }),
      cell(vectors[n].scope), cell(vectors[n].verify), cell(vectors[n].adopt), cell(vectors[n].execute)))));
}

async function showTrajectory(id) {
  state.view = "trajectory";
  const view = $("view");
  let data;
  try {
    data = await api("trajectories/" + encodeURIComponent(id));
  } catch (e) {
    view.replaceChildren(el("div", { class: "card" }, el("p", { class: "error", text: e.message })));
    return;
  }
  const report = data.report || {};
  const img = el("img", { id: "flow", alt: "authority flow of " + id, src: flowUrl(id) });
  const tbody = el("tbody", {}, (data.rows || []).map(recordRow));
  view.replaceChildren(
    el("div", { class: "head" }, el("h1", {}, "Trajectory ", el("span", { class: "mono", text: id })),
      data.live ? el("span", { class: "badge green", text: "live" }) : null,
      el("span", { class: "muted", text: "mode " + (data.mode || "") })),
    el("div", { class: "card" },
      el("p", { id: "headline", class: "headline " + (report.captured ? "red" : "green"), text: data.headline || "" }),
      vectorsBlock(data)),
    el("div", { class: "card" }, el("h2", { text: "Authority flow" }), el("div", { class: "flow" }, img)),
    el("div", { class: "card" }, el("h2", { text: "Records" }), el("table", { id: "records" },
      el("thead", {}, el("tr", {}, ["#", "Kind", "Who", "Stage", "Action", "Decision", "Why", "Detail"].map((h) => el("th", { text: h })))),
      tbody)));
  openTrajectoryFeed(id, tbody, img);
}

function flowUrl(id) {
  return "/console/api/trajectories/" + encodeURIComponent(id) + "/flow.svg?at=" + Date.now();
}

function openTrajectoryFeed(id, tbody, img) {
  closeTrajectoryFeed();
  const source = new EventSource("/console/api/trajectories/" + encodeURIComponent(id) + "/events");
  let redraw = null;
  source.addEventListener("record", (event) => {
    const r = JSON.parse(event.data);
    if (!tbody.querySelector('tr[data-seq="' + r.seq + '"]')) tbody.append(recordRow(r));
    clearTimeout(redraw);
    redraw = setTimeout(() => { img.src = flowUrl(id); }, 300);
  });
  source.addEventListener("resync", () => route());
  state.trajectoryFeed = source;
}

// ---- modes -----------------------------------------------------------------------------------

const MECHANISMS = ["anonymize", "attest", "preverify", "grants", "enforce"];
const PRESETS = ["all", "off", "anonymize", "attest", "preverify"];

async function setModes(params) {
  try {
    await api("modes", { method: "POST", body: params });
    flash("Modes set.");
    showModes();
  } catch (e) {
    flash(e.message, true);
  }
}

async function showModes() {
  state.view = "modes";
  const view = $("view");
  let data;
  try {
    data = await api("modes");
  } catch (e) {
    view.replaceChildren(el("div", { class: "card" }, el("p", { class: "error", text: e.message })));
    return;
  }
  const boxes = MECHANISMS.map((m) => el("input", { type: "checkbox", id: "mode-" + m, checked: !!data.modes[m] }));
  const chosen = () => Object.fromEntries(MECHANISMS.map((m, i) => [m, boxes[i].checked]));
  const trajectory = el("input", { id: "override-trajectory", placeholder: "trajectory id", class: "mono" });
  const preset = el("select", { id: "override-preset" }, PRESETS.map((p) => el("option", { value: p, text: p })));
  const overrides = data.overrides.map((o) => el("tr", { "data-override": o.trajectory },
    el("td", { class: "mono", text: o.trajectory }),
    el("td", { text: MECHANISMS.filter((m) => o.modes[m]).join(", ") || "none (off)" }),
    el("td", {}, el("button", { type: "button", onclick: () => setModes({ trajectory: o.trajectory, clear: true }) }, "Clear"))));
  view.replaceChildren(
    el("div", { class: "head" }, el("h1", { text: "Modes" }),
      el("span", { class: "muted", text: "anonymize and attest change for trajectories that start afterwards." })),
    el("div", { class: "card modes" }, el("h2", { text: "Global" }),
      el("div", {}, MECHANISMS.map((m, i) => el("label", { class: "check" }, boxes[i], m))),
      el("div", { class: "presets" },
        el("button", { id: "modes-apply", class: "primary", type: "button", onclick: () => setModes({ modes: chosen() }) }, "Apply"),
        PRESETS.map((p) => el("button", { type: "button", onclick: () => setModes({ name: p }) }, p)))),
    el("div", { class: "card" }, el("h2", { text: "Per trajectory" }),
      el("div", { class: "presets" }, trajectory, preset,
        el("button", { id: "override-set", type: "button", onclick: () => setModes({ trajectory: trajectory.value.trim(), name: preset.value }) }, "Set override")),
      overrides.length ? el("table", {}, el("thead", {}, el("tr", {}, ["Trajectory", "Mechanisms", ""].map((h) => el("th", { text: h })))),
        el("tbody", {}, overrides)) : el("p", { class: "muted", text: "No trajectory has its own modes." })));
}

// ---- start -----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", login);
  $("logout").addEventListener("click", logout);
  window.addEventListener("hashchange", route);
  start().catch(() => showLogin());
});
