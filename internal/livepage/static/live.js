// The live page: polls live.json and draws each chain as a row of stages,
// each coloured by the phase it spent most of the window in. The shape of
// live.json is written down in the Go package livepage and in docs/live.md.
"use strict";

const every = 500; // milliseconds between polls
const body = document.body;

function fail(message) {
  body.dataset.error = message;
  const state = document.getElementById("state");
  state.textContent = "error: " + message;
  state.className = "error";
}
window.addEventListener("error", (e) => fail(String(e.message)));
window.addEventListener("unhandledrejection", (e) => fail(String(e.reason)));

// el makes an element with a class and text.
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function num(v, digits) {
  if (v === null || v === undefined) return "–";
  return digits ? v.toFixed(digits) : String(v);
}

function secs(v) {
  if (v === null || v === undefined) return "–";
  if (v < 1e-3) return (v * 1e6).toFixed(0) + " µs";
  if (v < 1) return (v * 1e3).toFixed(1) + " ms";
  return v.toFixed(2) + " s";
}

function pct(v) { return Math.round(v * 100) + "%"; }

// phase names the phase a stage spent most of the window in.
function phase(s) {
  const { busy, held, idle } = s.shares;
  if (busy >= held && busy >= idle && busy > 0) return "busy";
  if (held > idle) return "held";
  return "idle";
}

function row(dl, label, key, text) {
  dl.append(el("dt", "", label));
  const dd = el("dd", "", text);
  dd.dataset.k = key;
  dl.append(dd);
}

function table(heads, rows) {
  const t = el("table");
  const tr = el("tr");
  for (const h of heads) tr.append(el("th", "", h));
  t.append(tr);
  for (const r of rows) {
    const tr = el("tr");
    for (const c of r) tr.append(el("td", "", String(c)));
    t.append(tr);
  }
  return t;
}

// timelines draws a row per worker over the window: a cell a sample, as
// tall as the share of its slots at work, hung work striped, a red mark
// where attempts failed on it and a blue one where items moved on from it.
function timelines(workers) {
  const box = el("div", "timelines");
  for (const w of workers) {
    const line = el("div", "timeline");
    line.dataset.worker = String(w.id);
    line.append(el("span", "who", String(w.addr || w.id)));
    const cells = el("span", "cells");
    for (const m of w.history || []) {
      const c = el("span", "cell" + (m.hung ? " hung" : "") + (m.failed ? " failed" : "") + (m.moved ? " moved" : ""));
      c.style.height = Math.max(1, Math.round(m.busy * 16)) + "px";
      const notes = [];
      if (m.failed) notes.push(m.failed + " failed");
      if (m.moved) notes.push(m.moved + " moved on");
      if (notes.length) c.title = notes.join(", ");
      cells.append(c);
    }
    line.append(cells);
    box.append(line);
  }
  return box;
}

function drawStage(chain, s) {
  const box = el("section", "stage " + phase(s));
  if (chain.bottleneck === s.name) box.classList.add("bottleneck");
  box.dataset.stage = s.name;
  const h = el("h3", "", s.name);
  h.append(el("small", "", s.kind));
  box.append(h);
  if (chain.bottleneck === s.name) box.append(el("div", "flag", "bottleneck"));
  const bar = el("div", "bar");
  for (const p of ["busy", "held", "idle"]) {
    const seg = el("div", p);
    seg.style.width = (s.shares[p] * 100) + "%";
    bar.append(seg);
  }
  box.append(bar);
  box.append(el("div", "shares", `busy ${pct(s.shares.busy)} · held ${pct(s.shares.held)} · idle ${pct(s.shares.idle)}`));
  const dl = el("dl");
  row(dl, "in /s", "in", num(s.in, 1));
  row(dl, "out /s", "out", num(s.out, 1));
  row(dl, "queued", "queued", num(s.queued));
  row(dl, "in flight", "in_flight", num(s.in_flight));
  row(dl, "results held", "results", num(s.results));
  row(dl, "done", "done", num(s.done));
  if (s.failed) row(dl, "failed", "failed", num(s.failed));
  row(dl, "demand", "demand", s.demand === null ? "unbounded" : num(s.demand));
  if (s.limit !== null) row(dl, "limit", "limit", num(s.limit));
  if (s.tokens !== null) row(dl, "tokens", "tokens", num(s.tokens, 2));
  if (s.rate !== null) row(dl, s.shared ? "granted /s" : "rate /s", "rate", num(s.rate, 1));
  if (s.shared) row(dl, "used /s", "used", num(s.out, 1));
  row(dl, "wait p50", "wait_p50", secs(s.wait_p50));
  row(dl, "wait p99", "wait_p99", secs(s.wait_p99));
  box.append(dl);
  if (s.workers) {
    box.append(table(["worker", "slots", "in flight", "done", "failed", "moved"],
      s.workers.map((w) => [w.addr || w.id, w.slots, w.in_flight, w.done, w.failed, w.moved])));
    box.append(timelines(s.workers));
  }
  if (s.tags) {
    box.append(table(["tag", "want", "queued", "leased", "retrying"],
      s.tags.map((t) => [t.tag || "(any)", t.want, t.queued, t.leased, t.retrying])));
  }
  if (s.keys) {
    box.append(table(["key", "weight", "waiting", "started", "share", "fair share"],
      s.keys.map((k) => [k.key, k.weight, k.waiting, k.started, pct(k.share), pct(k.fair)])));
  }
  return box;
}

function drawChain(c) {
  const sec = el("section", "chain");
  sec.dataset.chain = c.name;
  const h = el("h2", "", c.name);
  h.append(el("small", "", c.done ? "done" : (c.error ? "error: " + c.error : "running")));
  sec.append(h);
  const r = el("div", "row");
  c.stages.forEach((s, i) => {
    if (i > 0) r.append(el("div", "arrow", "→"));
    r.append(drawStage(c, s));
  });
  sec.append(r);
  return sec;
}

function draw(doc) {
  const main = document.getElementById("chains");
  main.replaceChildren(...doc.chains.map(drawChain));
  document.getElementById("window").textContent =
    `· shares and rates over the last ${doc.window} s, sampled every ${doc.period * 1000} ms`;
  const state = document.getElementById("state");
  state.className = "";
  state.textContent = doc.chains.length ? "as of " + new Date(doc.time).toLocaleTimeString() : "no chain is watched yet";
  body.dataset.polls = String(Number(body.dataset.polls) + 1);
}

async function poll() {
  try {
    const resp = await fetch("live.json", { cache: "no-store" });
    if (!resp.ok) throw new Error("live.json: " + resp.status);
    draw(await resp.json());
  } catch (e) {
    fail(String(e));
  }
  setTimeout(poll, every);
}
poll();
