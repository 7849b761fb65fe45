// The hall feed's patches (kiosk/scorer/feed.py), merged into the snapshot a page holds.
//
// A patch follows the snapshot of serial - 1: it replaces top-level keys ("set"), table rows
// by number, standings rows by team, and the standings' order when it changed. Rows that did
// not change keep counting down: their time left moves on by the time between the two.
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
    }
    out.generated = patch.generated;
    out.serial = patch.serial;
    return out;
  }

  window.HallFeed = { merge };
}());
