// The page's live feed, read once for every tab of the page.
//
// A browser opens at most six connections to one server, and a tab's event stream holds one open for good: with a
// stream per tab the seventh tab of the page never loads. So this file runs as a shared worker that holds the only
// stream and hands every message to each tab of the page; where a browser has no shared worker, the page runs
// followStream itself (app.js).
"use strict";

// Read /api/events (with fetch: the token goes in a header) until the page goes, reconnecting with a growing wait.
// tell() gets {type: "live"} once the stream is open (after a drop too: the tabs then read what they missed),
// {type: "reconnecting", title} when it dropped, and {type: "batch", data} for each event's data, as text.
async function followStream(token, tell) {
  for (let wait = 500; ; wait = Math.min(wait * 2, 10000)) {
    let title = "";
    try {
      const response = await fetch("/api/events", { headers: { Authorization: `Bearer ${token()}` },
        cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      tell({ type: "live" });
      wait = 500;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
          const data = block.split(/\r?\n/).filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
          if (data) tell({ type: "batch", data });
        }
      }
    } catch (error) {
      title = error.message;
    }
    tell({ type: "reconnecting", title });
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

// Batches a tab not shown keeps for when it is shown (past them it reads the page afresh instead): a few minutes of
// agents' work at the server's five batches a second under a steady stream.
const HIDDEN_BATCHES = 600;

if (typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope) {
  const tabs = new Set();
  const behind = new Map();  // a tab not shown: the batches it missed, or null past what it keeps (it reads afresh)
  const keeps = new Map();  // how many batches each tab keeps (HIDDEN_BATCHES unless it said otherwise)
  let token = "";
  let following = false;
  let last = null;  // the stream's state as last told ({type: "live"} or "reconnecting"), for a tab that joins
  // A tab not shown is sent no batch: ten tabs behind the one in front cost nothing while agents work. It is
  // sent what it missed when it is shown.
  const tell = (message) => {
    if (message.type !== "batch") last = message;
    for (const tab of tabs) {
      if (message.type === "live" && behind.has(tab)) behind.set(tab, []);  // it reads the page afresh now
      if (message.type !== "batch" || !behind.has(tab)) {
        tab.postMessage(message);
        continue;
      }
      const missed = behind.get(tab);
      if (missed !== null && missed.length < (keeps.get(tab) ?? HIDDEN_BATCHES)) missed.push(message.data);
      else behind.set(tab, null);
    }
  };
  self.onconnect = (event) => {
    const tab = event.ports[0];
    tab.onmessage = ({ data }) => {
      if (data.type === "join") {
        token = data.token;  // the newest tab's: a server started since with another token is followed
        tabs.add(tab);
        keeps.set(tab, data.keep);
        if (data.hidden) behind.set(tab, []);
        else behind.delete(tab);
        if (last) tab.postMessage(last);  // live already: the tab reads the page now, and batches from here on
        if (!following) {
          following = true;
          followStream(() => token, tell);
        }
      } else if (data.type === "hidden") {
        keeps.set(tab, data.keep);
        if (!behind.has(tab)) behind.set(tab, []);
        tab.postMessage({ type: "keeping" });
      } else if (data.type === "shown") {
        const missed = behind.get(tab);
        behind.delete(tab);
        if (missed === null) tab.postMessage({ type: "stale" });
        else if (missed !== undefined && missed.length) tab.postMessage({ type: "missed", data: missed });
      } else if (data.type === "leave") {
        tabs.delete(tab);
        behind.delete(tab);
        keeps.delete(tab);
      }
    };
    tab.start();
  };
}
