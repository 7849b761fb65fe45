// The phone view of one team (the hall's QR code opens it): find your team, then follow its
// standing, its table live, its next pairing and its matches so far.
//
// The team list from GET /api/teams; the view from GET /api/team/ID, then server-sent events
// from /api/hall/stream?team=ID ("team" with the whole view when it changed, "ping" with the
// scorer's time). Clocks count down against the scorer's clock; the round clock reads as the
// hall's does (feed.js). Names go on the page as text.
//
// URL parameters: team=ID, lang=zh-Hans|zh-Hant|en, stale_seconds=N (default 12).
(function () {
  'use strict';

  // The words, in every language, from the catalogs (kiosk/i18n/<lang>/phone.toml), put
  // into the page by the scorer.
  const I18N = JSON.parse(document.getElementById('words').textContent);

  const LANGS = Object.keys(I18N);
  const DEFAULT_LANG = 'zh-Hans';
  const REMEMBER = 'kiosk80.team';
  const SHOWN = 40;  // matches listed at most

  const params = new URLSearchParams(location.search);
  const staleParam = parseFloat(params.get('stale_seconds'));
  const STALE_SECONDS = Number.isFinite(staleParam) && staleParam > 0 ? staleParam : 12;

  let lang = LANGS.includes(params.get('lang')) ? params.get('lang') : DEFAULT_LANG;
  let team = params.get('team') || remembered();
  let view = null;       // the team's view from the scorer
  let teams = null;      // every team, for the search
  let fold = {};         // traditional character -> simplified, for what is typed
  let eventName = null;  // the event's name, from the team list
  let eventWording = '';  // and its words where they differ (see `wording`)
  let offset = 0;        // scorer time minus browser time, seconds
  let lastData = performance.now();
  let lastDataWall = Date.now();
  let waitingSince = performance.now();  // when the screen on show began to wait for its data
  let lastTry = 0;  // when the watchdog last started the feed again
  let source = null;
  let backoff = 1000;
  let reconnectTimer = 0;
  let notice = '';

  const $ = (id) => document.getElementById(id);

  // the event's words where they differ (`key_<wording>`): an individual event's (选手),
  // an event counting wins' (胜场 for 大分), a groups event's (积分)
  let wording = '';
  let individual = false;

  function t(key, vars) {
    if (wording && `${key}_${wording}` in I18N[DEFAULT_LANG]) key = `${key}_${wording}`;
    let text = I18N[lang][key];
    if (text === undefined) text = I18N[DEFAULT_LANG][key];
    if (text === undefined) return key;
    if (vars) text = text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return text;
  }

  // A value the server sends in words (a phase, a status); one without words is a dash.
  function named(prefix, value) {
    const key = `${prefix}_${value}`;
    return key in I18N[DEFAULT_LANG] ? t(key) : '—';
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A team's name, broken between its words only (feed.js), in a span of `className`.
  function nameEl(className, name) {
    const node = el('span', className);
    node.append(...window.HallFeed.nameNodes(name));
    return node;
  }

  function remembered() {
    try { return localStorage.getItem(REMEMBER); } catch (err) { return null; }
  }

  function remember(id) {
    try {
      if (id) localStorage.setItem(REMEMBER, id); else localStorage.removeItem(REMEMBER);
    } catch (err) { /* a private window keeps nothing */ }
  }

  const serverNow = () => Date.now() / 1000 + offset;
  const setOffset = (s) => {
    if (typeof s === 'number' && Number.isFinite(s)) offset = s - Date.now() / 1000;
  };

  // (feed.js: both pages say time and a paused table alike)
  const { clockText, wallText, heldByPause } = window.HallFeed;
  const label = (text, ids, tells) => window.HallFeed.label(t, text, ids, tells);

  function signed(n) {
    return typeof n === 'number' && n > 0 ? `+${n}` : String(n);
  }

  function fact(label, value, className) {
    const box = el('div', className);
    box.append(el('dt', '', label), el('dd', '', value));
    return box;
  }

  // The table's levels, 南北's first as the line above says them, this team's in gold (a
  // player read 「3 : 2」 without knowing which was theirs).
  function levelsFact(table, mine) {
    const box = fact(t('levels'), table.levels ? '' : '—', 'levels');
    if (table.levels) {
      box.lastChild.append(...['NS', 'EW'].flatMap((side, i) => [
        ...(i ? [' : '] : []),
        el('span', side.toLowerCase() === mine ? 'mine' : '',
          table.past === side ? t('past', { level: table.levels[side] }) : table.levels[side]),
      ]));
    }
    return box;
  }

  // ---- the search ----------------------------------------------------------------------

  function showSearch(message) {
    team = null;
    view = null;
    notice = message || '';
    waitingSince = performance.now();
    stopStream();
    setUrlTeam(null);
    $('view').hidden = true;
    $('search').hidden = false;
    renderHeader();
    if (teams === null) loadTeams(); else renderMatches();
    $('query').focus();
  }

  // A GET of the scorer's JSON (null: not found); one that hangs counts as failed.
  async function get(url) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 10000);
    try {
      const response = await fetch(url, { cache: 'no-store', signal: abort.signal });
      if (response.status === 404) return null;
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return await response.json();
    } finally {
      clearTimeout(timer);
    }
  }

  async function teamList() {
    const list = await get('/api/teams');
    teams = list.teams;
    fold = list.fold || {};
    eventName = list.event;
    eventWording = list.wording || '';
    useWording(eventWording);  // (before a message said from the list: 没有这名选手)
    gotData();
  }

  async function loadTeams() {
    try {
      await teamList();
      renderHeader();
    } catch (err) {
      setTimeout(() => { if (!team && teams === null) loadTeams(); }, 3000);
    }
    renderMatches();
  }

  // What is typed, as the scorer folded each team's words (`find`): lower case, and each
  // traditional character in its simplified form, so 王建國 finds 王建国 and 廈門 厦门.
  function folded(text) {
    return Array.from(text.normalize('NFKC').toLowerCase(), (c) => fold[c] || c).join('');
  }

  // Every word typed in one of the team's id, name, unit or players' names.
  function matches(query) {
    const words = folded(query).split(/\s+/).filter(Boolean);
    const all = teams || [];
    if (!words.length) return all;
    return all.filter((x) => words.every((w) => (x.find || '').includes(w)));
  }

  // The players a search found the team by (a player looking for their own name).
  function playersFound(team, query) {
    const words = folded(query).split(/\s+/).filter(Boolean);
    return (team.players || []).filter((p) => words.some((w) => folded(p).includes(w)));
  }

  function renderMatches() {
    const query = $('query').value;
    const found = matches(query);
    $('matches').replaceChildren(...found.slice(0, SHOWN).map((x) => {
      const item = el('li');
      const button = el('button');
      button.type = 'button';
      button.dataset.team = x.id;
      const name = x.tell ? t('twin', { name: x.name, tell: x.tell }) : x.name;
      button.append(el('span', 'name', name), el('span', 'unit', x.unit || ''));
      const players = playersFound(x, query);
      if (players.length) button.append(el('span', 'players', players.join('、')));
      button.addEventListener('click', () => choose(x.id));
      item.append(button);
      return item;
    }));
    const none = $('no-match');
    none.hidden = teams === null || found.length > 0;
    none.textContent = notice || t('no_match');
    if (notice && teams !== null) none.hidden = false;
  }

  function choose(id) {
    notice = '';
    waitingSince = performance.now();
    team = id;
    remember(id);
    setUrlTeam(id);
    $('search').hidden = true;
    $('view').hidden = false;
    view = null;
    render();
    fetchView();
    connect();
  }

  function setUrlTeam(id) {
    const url = new URL(location.href);
    if (id) url.searchParams.set('team', id); else url.searchParams.delete('team');
    history.replaceState(null, '', url);
  }

  // ---- the view ------------------------------------------------------------------------

  // An event may have words of its own: the page says them once they are known.
  function useWording(words) {
    if (words !== wording) {
      wording = words;
      individual = words === 'individual';
      applyLanguage();
    }
  }

  function renderHeader() {
    const event = view && view.event;
    useWording(event ? event.wording || '' : eventWording);
    const name = event ? event.name : (view || teams ? eventName : null);
    $('event-name').textContent = name || (view || teams ? t('no_event') : '…');
    $('round').textContent = event && event.round
      ? (event.rounds ? t('round', { n: event.round, of: event.rounds }) : t('round_open', { n: event.round }))
      : '';
    document.title = t('title');
  }

  function render() {
    renderHeader();
    if (!view) return;
    const me = view.team;
    $('team-name').replaceChildren(...window.HallFeed.nameNodes(me.name));
    $('team-unit').textContent = me.unit || '';
    // how it left, as the console and the printed standings say it: after round N, or
    // during round N (that match lost by forfeit)
    const out = me.withdrawal;
    $('withdrawn').hidden = !out;
    $('withdrawn').textContent = out
      ? t(out[0] === 'during' ? 'withdrawn_during' : 'withdrawn', { round: out[1] }) : '';
    $('final').hidden = !closed();  // the event is over: its standing is the final one
    const s = view.standing;
    const event = view.event || {};
    const placed = Boolean(s && (s.played > 0 || s.points > 0));
    $('standing').replaceChildren(...(s ? [
      // a shared place as the console says it (并列第 3 名); none before any match is
      // played, where every team would share the first (the hall's —); a shared place takes
      // two columns, so that its 名 is never alone on a line
      // (a team that has only had a bye has its place: it scored)
      fact(t('rank'), !view.ranked || !placed ? '—' : s.tied ? t('rank_tied', { rank: s.rank }) : s.rank,
        view.ranked && placed && s.tied ? 'rank tied' : 'rank'),
      fact(t('points'), s.points, 'points'),
      // the net levels and opponents' points where they break ties (an individual event
      // keeps neither); after an individual event's finals a player's place is within a
      // final group, which the hall names too
      ...(event.net_levels ? [fact(t('net'), signed(s.net), 'net')] : []),
      ...(event.opponents ? [fact(t('opponents'), s.opponents, 'opponents')] : []),
      ...(individual && s.prize ? [fact(t('group'), t('prize_group', { n: s.prize }), 'group')] : []),
      fact(t('played'), s.played, 'played'),
      // (a fifth place may have more big points than a fourth: why, under them)
      ...(individual && s.prize ? [fact('', t('places_by_final'), 'wide note')] : []),
    ] : []));
    renderNow();
    renderBye();
    renderPending();
    renderNext();
    renderHistory();
    tick();
  }

  function closed() {
    return Boolean(view.event && view.event.status === 'closed');
  }

  function renderNow() {
    const box = $('now');
    const table = closed() ? null : view.table;  // a closed event's last round is history
    box.hidden = !table;
    if (!table) return;
    box.classList.toggle('kiosk-offline', offline(table));
    $('now-title').textContent = t('now', { n: table.round || '', table: table.table });
    const versus = $('now-teams');
    const mine = view.side === 'EW' ? 'ew' : 'ns';
    const ns = nameEl(mine === 'ns' ? 'mine' : '', label(table.ns, table.ns_ids, table.tells));
    const ew = nameEl(mine === 'ew' ? 'mine' : '', label(table.ew, table.ew_ids, table.tells));
    if (table.ew_ids && !table.ew_ids.length && table.ns_ids.length > 2) {
      // an individual event's table: its four players, no sides
      versus.replaceChildren(el('span', 'side', `${t('at_table')} `), ns);
    } else {
      versus.replaceChildren(el('span', 'side', `${named('side', 'NS')} `), ns,
        el('span', 'vs', ` ${t('vs')} `), el('span', 'side', `${named('side', 'EW')} `), ew);
    }
    const facts = [
      fact(t('hand'), table.hand || '—', 'hand'),
      individual ? fact(t('seat'), view.side ? named('seat', view.side) : '—', 'seat')  // (no sides)
        : levelsFact(table, mine),
      fact(t('dealer'), table.dealer ? named('seat', table.dealer) : '—', 'dealer'),
      fact(t('phase'), phaseText(table, mine.toUpperCase()), 'phase'),
      fact(t('time'), '—', 'time'),
    ];
    $('now-facts').replaceChildren(...facts);
  }

  // While the hall is paused a table in play says 暂停, as the hall's rows do (`paused`: the
  // round clock's reading, kept by tick(), which shows the table again when it changes).
  let paused = false;

  // The table's state; once its match is decided, with what it means for this team, as the
  // history says it: 已裁决：胜（对方判负）, 比赛结束：负. (A match its kiosk has not set up:
  // 未就绪, as the hall and the console say.)
  function phaseText(table, mine) {
    if (!table.phase) return '—';
    if (paused && heldByPause(table.phase)) return named('phase', 'paused');
    const phase = named('phase', table.phase === 'idle' && table.round ? 'not-set-up' : table.phase);
    const result = table.result;
    if (!result) return phase;
    const outcome = !result.winner ? 'draw' : (result.winner === mine ? 'won' : 'lost');
    const said = result.ruling && outcome !== 'draw' ? t(`ruled_${outcome}_${result.ruling}`) : t(outcome);
    return t('phase_result_of', { phase, result: said });
  }

  // A kiosk the scorer has not heard from lately (the hall's 离线): its table may be playing
  // on, but nothing on the phone moves until it is heard from again. Before the round
  // starts (等待开始) a kiosk not heard from yet is no alarm for the players.
  function offline(table) {
    return Boolean(table.link && table.link.state === 'offline' && table.phase !== 'waiting');
  }

  // A bye this round: no table to go to.
  function renderBye() {
    const bye = !view.table && view.bye;
    $('bye').hidden = !bye;
    if (!bye) return;
    $('bye-title').textContent = t('bye_title', { n: bye.round });
    $('bye-text').textContent = t('bye_text', { points: bye.points });
  }

  // No pairing to go to yet: the next round's is still to be published.
  function renderPending() {
    const event = view.event;
    const n = event ? (event.round || 0) + 1 : 0;
    const more = Boolean(event) && event.status !== 'closed' && (!event.rounds || n <= event.rounds) &&
      typeof view.team.withdrawn_after !== 'number';
    const roundOver = Boolean(view.round_clock && view.round_clock.state === 'over');
    const shown = more && !view.next && (roundOver || (!view.table && !view.bye));
    $('pending').hidden = !shown;
    $('pending-title').textContent = shown ? t('not_published', { n }) : '';
  }

  function renderNext() {
    const next = view.next;
    // the round the team's table card shows already (published, not started): said once
    const shown = next && !(view.table && view.table.round === next.round);
    $('next').hidden = !shown;
    if (!shown) return;
    $('next-title').textContent = t('next', { n: next.round });
    $('next-text').textContent = t('next_text', {
      table: next.table, side: named('side', next.side),
      opponent: label(next.opponent, next.opponent_ids, next.tells) });
  }

  function renderHistory() {
    const rows = view.history || [];
    $('history-box').hidden = rows.length === 0;
    $('history').replaceChildren(...rows.map((h) => {
      if (h.missed) {  // a late entry's round before it joined
        return el('li', 'missed', t('history_missed', { n: h.round, points: h.points }));
      }
      if (h.seat) {  // an individual event's table, finished: the player's big points there
        return el('li', '', t('history_seat', { n: h.round, table: h.table, seat: named('seat', h.seat),
          points: h.points, deals: h.deals }));
      }
      if (h.opponent === null) {
        return el('li', 'bye', t('history_bye', { n: h.round, points: h.points }));
      }
      const outcome = h.won === null ? 'draw' : (h.won ? 'won' : 'lost');
      // a head referee's ruling says so, as the console and the printed sheets do (判负)
      const result = h.ruling && outcome !== 'draw' ? t(`ruled_${outcome}_${h.ruling}`) : t(outcome);
      const item = el('li', h.won === null ? '' : (h.won ? 'won' : 'lost'), t('history_row', {
        n: h.round, table: h.table || '—', opponent: label(h.opponent, h.opponent_ids, h.tells), result,
        points: h.points, net: signed(h.net) }));
      item.dataset.round = String(h.round);
      return item;
    }));
  }

  // What moves with the clock alone: the round clock, the table's clock, staleness.
  function tick() {
    const now = serverNow();
    document.querySelector('.clock-box').hidden = !view;
    // the hall's reading of the round clock: paused, extended, stopped, the lead-in (feed.js)
    const rc = window.HallFeed.roundClock(view && view.round_clock, now);
    const clock = $('round-clock');
    clock.textContent = rc.up ? t('time_up') : (rc.seconds === null ? '—' : clockText(rc.seconds));
    const alone = rc.seconds === null && !rc.up;  // (本轮结束 in its place: the hall's way)
    clock.hidden = alone;
    $('round-clock-label').classList.toggle('alone', alone);
    clock.classList.toggle('expired', rc.up);
    clock.classList.toggle('paused', rc.state === 'paused');
    $('paused').hidden = rc.state !== 'paused';
    if ((rc.state === 'paused') !== paused) {
      paused = rc.state === 'paused';
      if (view) renderNow();
    }
    $('round-clock-label').textContent = t(rc.label);
    const table = view && view.table;
    const time = document.querySelector('#now-facts .time dd');
    if (time && table) {
      let text = '—';
      if (typeof table.time_left === 'number' && !table.result) {
        const running = table.clock_running && !offline(table);
        const left = running ? table.time_left - (now - view.generated) : table.time_left;
        text = clockText(left);
      }
      time.textContent = text;
    }
    const note = $('now-offline');
    const off = Boolean(table) && offline(table);
    note.hidden = !off;
    if (off) {  // for how long, as the hall says it
      const seen = table.link.last_seen;
      const minutes = typeof seen === 'number' ? Math.floor((now - seen) / 60) : 0;
      note.textContent = minutes >= 1 ? t('table_offline_for', { m: minutes }) : t('table_offline');
    }
    checkStale();
  }

  // ---- the feed ------------------------------------------------------------------------

  function gotData() {
    lastData = performance.now();
    lastDataWall = Date.now();
    checkStale();
  }

  // The banner: nothing to show yet (connecting, then the scorer cannot be reached), or,
  // once the team's data stops coming, since when what is on screen is old.
  function checkStale() {
    const waiting = team ? view === null : teams === null;
    const since = waiting ? Math.max(lastData, waitingSince) : lastData;
    const quiet = (performance.now() - since) / 1000 > STALE_SECONDS;
    let text = '';
    if (waiting) text = t(quiet ? 'unreachable' : 'connecting');
    else if (team && quiet) text = t('stale', { time: wallText(lastDataWall + offset * 1000) });
    const banner = $('stale');
    if (banner.textContent !== text) banner.textContent = text;
    banner.hidden = !text;
    banner.classList.toggle('connecting', waiting && !quiet);
    document.body.classList.toggle('stale', Boolean(text) && !waiting);
  }

  function show(data) {
    if (!data || typeof data !== 'object' || !data.team || data.team.id !== team) return;
    // The page's fetch and its stream race: a fetched view older than the one on screen is
    // dropped (the stream sends a view only when it changes, so the old one would stay).
    if (view && view.team.id === data.team.id && data.generated < view.generated) return;
    setOffset(data.generated);
    view = data;
    render();
    gotData();
  }

  async function fetchView() {
    const asked = team;
    let data;
    try {
      data = await get(`/api/team/${encodeURIComponent(asked)}`);
      if (data === null && teams === null) await teamList();
    } catch (err) {
      return;  // the stream retries; the banner says what the page is waiting for
    }
    if (team !== asked) return;
    if (data !== null && data.team && data.team.id !== asked) {
      choose(data.team.id);  // the scorer found T01 for t01 (ids ignore letter case)
      return;
    }
    if (data !== null) {
      show(data);
      return;
    }
    // No such id: the same in other letters (T01 for t01, as the search matches), or none.
    const same = teams.find((x) => x.id.toLowerCase() === asked.toLowerCase());
    if (same && same.id !== asked) {
      choose(same.id);
    } else {
      remember(null);
      showSearch(t('unknown_team'));
    }
  }

  function stopStream() {
    clearTimeout(reconnectTimer);
    if (source) source.close();
    source = null;
  }

  function connect() {
    stopStream();
    if (!team) return;
    const es = new EventSource(`/api/hall/stream?team=${encodeURIComponent(team)}`);
    source = es;
    es.onopen = () => { if (source === es) backoff = 1000; };
    es.addEventListener('team', (e) => {
      if (source !== es) return;
      try { show(JSON.parse(e.data)); } catch (err) { /* the next one */ }
    });
    es.addEventListener('ping', (e) => {
      if (source !== es) return;
      try { setOffset(JSON.parse(e.data).now); } catch (err) { /* a ping is a ping */ }
      gotData();
    });
    es.onerror = () => {
      if (source !== es || es.readyState !== EventSource.CLOSED) return;
      // Refused (the hall is full) or not a stream: try again later, and fetch meanwhile.
      es.close();
      source = null;
      reconnectTimer = setTimeout(() => { fetchView(); connect(); }, backoff);
      backoff = Math.min(backoff * 2, 30000);
    };
  }

  // A stream that is open but silent (a half-open connection after a Wi-Fi drop, a request
  // the network holds: neither errors) is started again after three stale periods.
  function watchdog() {
    if (!team) return;
    const quiet = (performance.now() - Math.max(lastData, waitingSince, lastTry)) / 1000;
    if (quiet > 3 * STALE_SECONDS) {
      lastTry = performance.now();
      fetchView();
      connect();
    }
  }

  // ---- start ---------------------------------------------------------------------------

  function applyLanguage() {
    document.documentElement.lang = lang;
    document.querySelectorAll('[data-i18n]').forEach((node) => {
      node.textContent = t(node.dataset.i18n);
    });
    document.querySelectorAll('[data-i18n-placeholder]').forEach((node) => {
      node.placeholder = t(node.dataset.i18nPlaceholder);
    });
    document.querySelectorAll('[data-i18n-label]').forEach((node) => {
      node.setAttribute('aria-label', t(node.dataset.i18nLabel));
    });
    document.querySelectorAll('#langs button').forEach((button) => {
      button.setAttribute('aria-pressed', String(button.dataset.lang === lang));
    });
    $('hall-link').href = `/?lang=${lang}`;
  }

  function setLanguage(next) {
    if (!LANGS.includes(next) || next === lang) return;
    lang = next;
    const url = new URL(location.href);
    url.searchParams.set('lang', lang);
    history.replaceState(null, '', url);
    applyLanguage();
    render();
    if (!team) renderMatches();
  }

  function start() {
    document.querySelectorAll('#langs button').forEach((button) => {
      button.addEventListener('click', () => setLanguage(button.dataset.lang));
    });
    $('query').addEventListener('input', () => { notice = ''; renderMatches(); });
    $('change').addEventListener('click', () => { remember(null); showSearch(); });
    applyLanguage();
    setInterval(tick, 500);
    setInterval(watchdog, 1000);
    if (team) choose(team); else showSearch();
  }

  window.teamView = {
    I18N,
    get view() { return view; },
    get lang() { return lang; },
  };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
