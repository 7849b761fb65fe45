// What the hall page and the phones' team page both read from the hall feed
// (kiosk/scorer/hall/feed.py): its patches, merged into the snapshot a page holds, and the round
// clock and the times shown, worked out one way for both pages.
//
// A patch follows the snapshot of serial - 1 of the same start of the scorer (`boot`: a restarted
// scorer counts its serials from 1 again): it replaces top-level keys ("set"), table rows
// by number, standings rows by team, the standings' order when it changed, and their ranks
// (in that order, by place) when the order or one of them changed. Rows that did not change keep counting down: their time
// left moves on by the time between the two.
(function () {
  'use strict';

  function rebase(row, elapsed) {
    if (!row.clock_running || row.result || typeof row.time_left !== 'number') return row;
    return Object.assign({}, row, { time_left: Math.max(0, row.time_left - elapsed) });
  }

  // The snapshot after `patch`; `snap` itself when the patch is one the page already has;
  // null when one is missing (the page then asks for the whole snapshot again).
  function merge(snap, patch) {
    if (!snap || typeof patch.serial !== 'number' || typeof snap.serial !== 'number') return null;
    if (patch.boot !== snap.boot) return null;
    if (patch.serial <= snap.serial) return snap;
    if (patch.serial !== snap.serial + 1) return null;
    const set = patch.set || {};
    const out = Object.assign({}, snap, set);
    if (!('tables' in set)) {
      const elapsed = patch.generated - snap.generated;
      const changed = new Map((patch.tables || []).map((row) => [row.table, row]));
      out.tables = snap.tables.map((row) => changed.get(row.table) || rebase(row, elapsed));
    }
    if (!('standings' in set)) {
      const rows = new Map(snap.standings.map((row) => [row.team, row]));
      (patch.standings || []).forEach((row) => rows.set(row.team, row));
      out.standings = (patch.order || snap.standings.map((row) => row.team))
        .map((team) => rows.get(team));
      const ranks = patch.ranks;
      if (ranks) {
        out.standings = out.standings.map((row, i) =>
          (row.rank === ranks[i] ? row : Object.assign({}, row, { rank: ranks[i] })));
      }
    }
    out.generated = patch.generated;
    out.serial = patch.serial;
    return out;
  }

  // The round clock (the snapshot's round_clock, kiosk/scorer/director/rounds.py) at scorer time
  // `now`: `label` names the catalog word above it (clock_left, clock_paused …), `seconds`
  // what it shows (null: nothing to count), `up` that time is up.
  function roundClock(rc, now) {
    const state = rc ? rc.state : null;
    const shown = (label, seconds, up) => ({ label, seconds, up: Boolean(up), state });
    if (!rc) return shown('clock_none', null);
    if (state === 'waiting') return shown('clock_waiting', null);
    if (state === 'over' || state === 'closed') return shown(`clock_${state}`, null);
    if (state === 'stopped') return shown('clock_stopped', 0, true);
    if (typeof rc.started_at !== 'number') return shown('clock_none', null);
    // Paused: the time stands where the pause began.
    const at = state === 'paused' && typeof rc.paused_at === 'number' ? rc.paused_at : now;
    if (at < rc.started_at && state !== 'paused') {
      return shown('clock_starts_in', rc.started_at - at);  // the lead-in: a countdown to the start
    }
    if (typeof rc.ends_at !== 'number') {
      return shown('clock_elapsed', Math.max(0, at - rc.started_at - (rc.paused_total || 0)));
    }
    // (a pause in the lead-in holds the whole round, never more)
    const left = rc.ends_at - Math.max(at, rc.started_at);
    return shown(state === 'paused' ? 'clock_paused' : 'clock_left', Math.max(0, left), left <= 0);
  }

  // Seconds as a clock shows them (1:05:09, 05:09), never below zero.
  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, '0');
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${String(m).padStart(2, '0')}:${ss}`;
  }

  // A moment (ms since the epoch) as the time of day on this screen: 14:03:09.
  function wallText(ms) {
    const d = new Date(ms);
    return [d.getHours(), d.getMinutes(), d.getSeconds()]
      .map((n) => String(n).padStart(2, '0')).join(':');
  }

  // Names as both pages show them: a team whose name another team has too gets what tells
  // them apart (`tells`, by id: its unit, or its id) in the page's words (`t('twin')`). `text`
  // is the names of `ids` in order, joined by ' · ' (an individual event's four players).
  function label(t, text, ids, tells) {
    if (!tells || !ids || !ids.some((id) => id in tells)) return text;
    const names = ids.length > 1 ? String(text).split(' · ') : [text];
    return ids.map((id, i) => (id in tells ? t('twin', { name: names[i], tell: tells[id] }) : names[i]))
      .join(' · ');
  }

  // A team's name as nodes a line breaks between, never inside (a browser breaks Chinese
  // anywhere: 「鼓浪屿老年八十」⏎「分协会第一代表」⏎「队」). Kept whole, each in a span that does
  // not wrap: what a short bracket holds (集美大学 in （集美大学）), a word of a team's name
  // (kiosk/words/data/name_words.txt, the page's #name-words: 鼓浪屿, 代表队, 文化宫), a
  // Latin word or a number, a numeral with its 第 and its unit (第一, 八十分), and the name's
  // last character with the word before it (no line holds 队 alone). Any other character
  // stands alone, and punctuation keeps to the browser's own rules.
  let wordPattern = null;
  function nameWords() {
    if (wordPattern === null) {
      const list = document.getElementById('name-words');
      const words = list ? JSON.parse(list.textContent) : [];
      const escaped = words.sort((a, b) => b.length - a.length)
        .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      wordPattern = new RegExp(['(?<=[（(])[^（）()]{1,6}(?=[）)])', ...escaped,
        "[A-Za-z0-9][A-Za-z0-9'’&.\\-]*", '第?[〇零一二两三四五六七八九十百千]+[分队隊名]?', '.'].join('|'),
      'gsu');
    }
    return wordPattern;
  }

  function nameNodes(text) {
    if (text === null || text === undefined) return [];
    const tokens = String(text).match(nameWords()) || [];
    const last = tokens[tokens.length - 1];  // (closing punctuation: the browser's own rule)
    if (tokens.length > 1 && [...last].length === 1 && !/[）)」』】》]/.test(last)) {
      tokens.splice(-2, 2, tokens[tokens.length - 2] + tokens[tokens.length - 1]);
    }
    const nodes = [];
    let loose = '';  // characters that stand alone, one text node between two words
    tokens.forEach((token) => {
      if ([...token].length === 1) {
        loose += token;
        return;
      }
      if (loose) nodes.push(document.createTextNode(loose));
      loose = '';
      const word = document.createElement('span');
      word.className = 'w';
      word.textContent = token;
      nodes.push(word);
    });
    if (loose) nodes.push(document.createTextNode(loose));
    return nodes;
  }

  // A table's phase that a hall-wide pause stands still: both pages then say 暂停 for it.
  const IN_PLAY = new Set(['ready', 'bury', 'fry', 'play', 'entry', 'result']);
  function heldByPause(phase) {
    return IN_PLAY.has(phase);
  }

  window.HallFeed = { merge, roundClock, clockText, wallText, label, heldByPause, nameNodes };
}());
