/* The run explorer of report.html (sounding.report.explorer): two systems side by side, query by query.
   Its data is the base64 of gzip-compressed JSON in #explorer-data, inflated with the browser's
   DecompressionStream; nothing is fetched. Every text from the data is set as text, never as markup. */
(function () {
  "use strict";
  const root = document.getElementById("explorer");
  const blob = document.getElementById("explorer-data");
  if (!root || !blob) return;
  const $ = (sel) => root.querySelector(sel);
  const status = document.querySelector(".x-status");  // beside the explorer: shown while it is not
  const state = { data: null, ds: null, a: 0, b: 1, q: null, sort: "diff", desc: true };

  inflate(blob.textContent.trim()).then(start).catch((err) => {
    status.textContent = "The explorer could not read its data (" + err.message + "); the tables above hold every figure.";
  });

  async function inflate(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function fmt(v, signed) {
    if (v === null || v === undefined || Number.isNaN(v)) return "—";
    const s = v.toFixed(4);
    if (!signed) return s;
    return s === "0.0000" || s === "-0.0000" ? "0.0000" : (v > 0 ? "+" : "") + s;
  }

  function start(data) {
    state.data = data;
    status.hidden = true;
    const pick = $(".x-dataset");
    data.datasets.forEach((d, i) => pick.append(new Option(d.name, i)));
    pick.addEventListener("change", () => chooseDataset(+pick.value));
    $(".x-a").addEventListener("change", (e) => { state.a = +e.target.value; draw(); });
    $(".x-b").addEventListener("change", (e) => { state.b = +e.target.value; draw(); });
    $(".x-swap").addEventListener("click", () => { [state.a, state.b] = [state.b, state.a]; draw(); });
    root.querySelectorAll(".x-queries th[data-sort]").forEach((th) => th.addEventListener("click", () => {
      state.desc = state.sort === th.dataset.sort ? !state.desc : true;
      state.sort = th.dataset.sort;
      drawQueries();
    }));
    root.hidden = false;
    chooseDataset(0);
  }

  function chooseDataset(i) {
    const ds = state.data.datasets[i];
    state.ds = ds;
    [state.a, state.b] = ds.default;
    for (const sel of [$(".x-a"), $(".x-b")]) {
      sel.replaceChildren(...ds.systems.map((s, j) => new Option(s.name, j)));
    }
    state.q = null;
    draw();
  }

  function pair() {  // [rbo, ktu] per query of the chosen pair (stored once per unordered pair)
    const { a, b, ds } = state;
    if (a === b) return [ds.queries.map(() => 1), ds.queries.map(() => 1)];
    return ds.pairs[Math.min(a, b) + "," + Math.max(a, b)];
  }

  function rowsOf() {
    const { ds, a, b } = state;
    const [rbo, ktu] = pair();
    const va = ds.systems[a].values, vb = ds.systems[b].values;
    return ds.queries.map((q, i) => ({
      i, qid: q[0], text: q[1], a: va[i], b: vb[i],
      diff: va[i] === null || vb[i] === null ? null : va[i] - vb[i], rbo: rbo[i], ktu: ktu[i],
    }));
  }

  function draw() {
    const { ds, a, b } = state;
    $(".x-a").value = a;
    $(".x-b").value = b;
    const colours = state.data.colours;
    $(".x-a").style.borderColor = colours[ds.systems[a].name] || "";
    $(".x-b").style.borderColor = colours[ds.systems[b].name] || "";
    const rows = rowsOf();
    let win = 0, tie = 0, loss = 0, sum = 0, n = 0, rs = 0, rn = 0, ks = 0, kn = 0;
    for (const r of rows) {
      if (r.diff !== null) { n++; sum += r.diff; if (r.diff > 0) win++; else if (r.diff < 0) loss++; else tie++; }
      if (r.rbo !== null) { rs += r.rbo; rn++; }
      if (r.ktu !== null) { ks += r.ktu; kn++; }
    }
    $(".x-summary").textContent =
      `${ds.name}, ${rows.length} queries: A − B on ${state.data.measure} ${fmt(n ? sum / n : null, true)} ` +
      `(mean); A wins ${win}, ties ${tie}, loses ${loss}; mean RBO ${fmt(rn ? rs / rn : null)}, ` +
      `mean KTU ${fmt(kn ? ks / kn : null)} (top ${state.data.depth}, p = ${state.data.p}).`;
    $(".x-head-a").textContent = "A";
    $(".x-head-b").textContent = "B";
    drawQueries(rows);
    if (state.q === null && rows.length) state.q = sorted(rows)[0].i;
    drawQuery();
  }

  function sorted(rows) {
    const key = state.sort, sign = state.desc ? -1 : 1;
    const val = (r) => key === "absdiff" ? (r.diff === null ? null : Math.abs(r.diff)) : r[key];
    return rows.slice().sort((x, y) => {
      const u = val(x), v = val(y);
      if (u === null || Number.isNaN(u)) return v === null || Number.isNaN(v) ? x.i - y.i : 1;
      if (v === null || Number.isNaN(v)) return -1;
      return u === v ? x.i - y.i : sign * (u - v);
    });
  }

  function drawQueries(rows) {
    rows = rows || rowsOf();
    const body = $(".x-queries tbody");
    const out = [];
    for (const r of sorted(rows)) {
      const tr = el("tr", r.i === state.q ? "chosen" : "");
      tr.dataset.qid = r.qid;
      tr.dataset.i = r.i;
      const id = el("td", "qid", r.qid);
      id.title = r.qid;
      const text = el("td", "qtext", r.text);
      text.title = r.text;
      const d = el("td", "num " + (r.diff > 0 ? "up" : r.diff < 0 ? "down" : ""), fmt(r.diff, true));
      tr.append(id, text, el("td", "num", fmt(r.a)), el("td", "num", fmt(r.b)), d,
        el("td", "num", fmt(r.rbo)), el("td", "num", fmt(r.ktu)));
      tr.addEventListener("click", () => { state.q = r.i; drawQueries(); drawQuery(); });
      out.push(tr);
    }
    body.replaceChildren(...out);
    root.querySelectorAll(".x-queries th[data-sort]").forEach((th) => {
      th.classList.toggle("sorted", th.dataset.sort === state.sort);
      th.dataset.dir = th.dataset.sort === state.sort ? (state.desc ? "▼" : "▲") : "";
    });
  }

  function marked(text, marks, terms) {  // text with its marks on the query's terms as <mark>
    const frag = document.createDocumentFragment();
    let at = 0;
    for (const m of marks || []) {
      if (m[0] < at || !m.slice(2).some((t) => terms.has(t))) continue;
      frag.append(text.slice(at, m[0]));
      frag.append(el("mark", "", text.slice(m[0], m[1])));
      at = m[1];
    }
    frag.append(text.slice(at));
    return frag;
  }

  function drawQuery() {
    const { ds, a, b, q } = state;
    const detail = $(".x-detail");
    if (q === null) { detail.replaceChildren(el("p", "note", "Choose a query.")); return; }
    const query = ds.queries[q];
    const terms = new Set(query[2]);
    const grades = new Map(ds.qrels[q]);
    const lists = [ds.systems[a].lists[q], ds.systems[b].lists[q]];
    const values = [ds.systems[a].values[q], ds.systems[b].values[q]];
    const head = el("div", "x-query");
    const text = el("strong", "", query[1]);
    text.title = "click to show it all";
    text.addEventListener("click", () => text.classList.toggle("open"));
    head.append(el("span", "qid", query[0]), text);
    const cols = el("div", "x-cols");
    [a, b].forEach((s, side) => {
      const other = new Map(lists[1 - side].map((d, r) => [d, r + 1]));
      const col = el("div", "x-col x-list-" + (side ? "b" : "a"));
      const title = el("h4", "", (side ? "B: " : "A: ") + ds.systems[s].name + "  " + state.data.measure + " " + fmt(values[side]));
      title.style.borderColor = state.data.colours[ds.systems[s].name] || "";
      col.append(title);
      const ol = el("ol", "hits");
      lists[side].forEach((d, r) => ol.append(hit(ds, d, r + 1, grades, terms, other, side ? "A" : "B")));
      if (!lists[side].length) col.append(el("p", "note", "No hits for this query."));
      col.append(ol);
      const missed = [...grades].filter(([d, g]) => g > 0 && !lists[side].includes(d)).sort((x, y) => y[1] - x[1]);
      const miss = el("div", "missed");
      miss.append(el("h5", "", missed.length ? `Relevant documents not in this top ${state.data.depth} (${missed.length})` :
        `Every relevant document is in this top ${state.data.depth}.`));
      const ul = el("ul");
      for (const [d, g] of missed) {
        const li = el("li");
        li.append(el("span", "grade rel", "grade " + g), " ", el("span", "docid", ds.docs[d][0]), " ",
          marked(ds.docs[d][1], ds.docs[d][2], terms));
        ul.append(li);
      }
      miss.append(ul);
      col.append(miss);
      cols.append(col);
    });
    detail.replaceChildren(head, cols);
  }

  function hit(ds, d, rank, grades, terms, other, otherName) {
    const doc = ds.docs[d];
    const g = grades.has(d) ? grades.get(d) : null;
    const li = el("li", "hit " + (g === null ? "unjudged" : g > 0 ? "rel" : "nonrel"));
    const top = el("div", "hit-head");
    top.append(el("span", "rank", rank + "."),
      el("span", "grade " + (g === null ? "unjudged" : g > 0 ? "rel" : "nonrel"), g === null ? "unjudged" : "grade " + g),
      el("span", "docid", doc[0]));
    top.lastChild.title = doc[0];
    if (other.has(d)) top.append(el("span", "both", "#" + other.get(d) + " in " + otherName));
    const t = el("div", "title");
    t.append(marked(doc[1], doc[2], terms));
    const s = el("div", "snippet");
    s.append(marked(doc[3], doc[4], terms));
    li.append(top, t, s);
    return li;
  }
})();
