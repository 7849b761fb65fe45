// The hall page: a read-only leaderboard for the hall's TVs and phones.
//
// First paint from GET /api/hall, then server-sent events from /api/hall/stream
// ("snapshot" with the same JSON, "ping" with the scorer's time). Clocks count down
// locally against the scorer's clock (the offset between its time and ours), so a TV
// whose own clock is wrong still shows the right time. Every name from the server is
// put on the page as text (textContent), never as HTML.
//
// URL parameters: lang=zh-Hans|zh-Hant|en, page_seconds=N (page turns, default 10),
// fit=0 (do not shrink rows to fit the screen before paging),
// stale_seconds=N (how long without data before the page says the feed is lost, default 12).
(function () {
  'use strict';

  // The words, in every language, from the catalogs (kiosk/i18n/<lang>/hall.toml): the
  // scorer puts them into the page, so switching language asks nothing of it.
  const I18N = JSON.parse(document.getElementById('words').textContent);
  const LANGS = Object.keys(I18N);
  const DEFAULT_LANG = 'zh-Hans';

  const params = new URLSearchParams(location.search);
  const positive = (name, fallback) => {
    const value = parseFloat(params.get(name));
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  const PAGE_SECONDS = positive('page_seconds', 10);
  const STALE_SECONDS = positive('stale_seconds', 12);
  const PHONE = window.matchMedia('(max-width: 699.98px)');
  const FIT = params.get('fit') !== '0';
  const DENSE_PAIRINGS = 24;  // more pairings than one 1080p page holds: the dense board
  const MIN_FIT = 0.72;  // rows shrink at most to this share of their size, then pages turn
  const FINAL_GROW = 1.8;  // a closed event's final standings: rows up to this much larger
  const LIVE_GROW = 1.4;  // a running hall's short lists: rows up to this much larger, no gap below
  const STREAM_URL = '/api/hall/stream';
  const SNAPSHOT_URL = '/api/hall';

  let lang = LANGS.includes(params.get('lang')) ? params.get('lang') : DEFAULT_LANG;
  let snap = null;           // the latest snapshot
  let offset = 0;            // scorer time minus browser time, seconds
  let lastData = performance.now();  // when data last arrived (monotonic ms)
  let lastDataWall = Date.now();     // the same moment on the browser's clock (ms)
  let streamFailed = false;  // the stream errored and no data has come since
  // the stream refused because this address has as many screens open as the hall allows
  // (a room of phones behind one router): said as such, not as data lost
  let crowded = false;
  let stale = false;
  let source = null;
  let backoff = 1000;
  let reconnectTimer = 0;
  let refetchOnOpen = false;
  let snapshotsSeen = 0;     // counts snapshots from the stream, to drop an older fetch
  let fetchesStarted = 0;
  let fetchApplied = 0;      // the latest fetch whose answer is on screen

  const $ = (id) => document.getElementById(id);
  const tableOf = new WeakMap();  // a table's row -> its data in the snapshot

  // the event's words where they differ (`key_<wording>`): an individual event's (选手),
  // an event counting wins' (胜场 for 大分), a groups event's (积分)
  let wording = '';

  function t(key, vars) {
    if (wording && `${key}_${wording}` in I18N[DEFAULT_LANG]) key = `${key}_${wording}`;
    let text = I18N[lang][key];
    if (text === undefined) text = I18N[DEFAULT_LANG][key];
    if (text === undefined) return key;
    if (vars) {
      text = text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
    }
    return text;
  }

  // The label for a value the server sends (a phase, a status, a seat); a value this page
  // has no words for is a dash: its raw name (「fry」) is no word for the hall.
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

  const serverNow = () => Date.now() / 1000 + offset;
  const setOffset = (scorerSeconds) => {
    if (typeof scorerSeconds === 'number' && Number.isFinite(scorerSeconds)) {
      offset = scorerSeconds - Date.now() / 1000;
    }
  };

  // (feed.js: both pages say time and a paused table alike)
  const { clockText, wallText, heldByPause } = window.HallFeed;
  const label = (text, ids, tells) => window.HallFeed.label(t, text, ids, tells);

  // The address under the QR code, to type by hand: where the column is too narrow for one
  // line it breaks after the scheme or before the port (<wbr>), never inside the port.
  function addressParts(address) {
    const parts = /^([a-z]+:\/\/)?([^:/]*)(.*)$/i.exec(address) || ['', '', address, ''];
    const out = [];
    [parts[1], parts[2], parts[3]].filter(Boolean).forEach((part, i) => {
      if (i) out.push(document.createElement('wbr'));
      out.push(document.createTextNode(part));
    });
    return out;
  }

  // The cells of `list` whose text is wider than the cell (cut with …): a number, a time, a
  // state, in a column of fixed width.
  function cutCells(list) {
    return Array.from(list.querySelectorAll('.srow > *, .trow > *')).filter(
      (cell) => cell.scrollWidth > cell.clientWidth + 0.5);
  }

  // The rulings in `list` a line break splits (「（对方取消资」⏎「格）」): kept whole, they
  // go to a line of their own (resultNodes), unless the type is too large for one.
  function splitRulings(list) {
    return Array.from(list.querySelectorAll('.ruling')).filter((ruling) =>
      new Set(Array.from(ruling.getClientRects(), (r) => Math.round(r.top))).size > 1);
  }

  // ---- pages that turn by themselves -------------------------------------------------

  // The team names of a list (a table's sides, a pairing's, a standing's name).
  const NAMES = '.team, .name .label';

  // The names in `list` with the lines each takes (its text's line boxes).
  function nameLines(list) {
    return Array.from(list.querySelectorAll(NAMES), (team) => {
      const range = document.createRange();
      range.selectNodeContents(team);
      const side = team.querySelector('.side');  // (a pairing's 南北 above the name)
      if (side) range.setStartAfter(side);
      return [team, new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size];
    });
  }

  // The names in `list` that their boxes cut (more lines than the box shows).
  function clippedNames(list) {
    return Array.from(list.querySelectorAll(NAMES)).filter(
      (name) => name.scrollHeight > name.clientHeight + 1);
  }

  // A name kept in words that its box cuts (four lines in a box of three: 「厦门港务集团」
  // 「有限公司工会」「委员会联合…」) breaks anywhere instead: whole is worth more than words.
  function loosen(list) {
    list.querySelectorAll('.loose').forEach((name) => name.classList.remove('loose'));
    clippedNames(list).forEach((name) => name.classList.add('loose'));
  }

  // A row rebuilt in place (its height unchanged) keeps its names' way of breaking.
  function keepLoose(old, row) {
    const before = old.querySelectorAll(NAMES);
    row.querySelectorAll(NAMES).forEach((name, i) => {
      if (before[i] && before[i].classList.contains('loose')) name.classList.add('loose');
    });
  }

  // A team's name in `node`, broken between its words only (feed.js).
  function putName(node, name) {
    node.append(...window.HallFeed.nameNodes(name));
    return node;
  }

  // A pager shows as many rows of a list as fit its viewport, one page at a time.
  class Pager {
    // `label(rows, index, count)`: the indicator's text for a page (default "2/5").
    // `scope`: where the rows' size (--fit) is set, for the list and what is sized with it
    // (the final standings' column heads); the list itself by default.
    constructor(list, indicator, grow = 1, label = null, scope = null) {
      this.grow = grow;  // how much larger than normal rows may get to fill the viewport
      this.label = label || ((rows, index, count) => `${index + 1}/${count}`);
      this.list = list;
      this.scope = scope || list;
      this.columns = 1;  // how many columns side by side the rows may take (see inColumns)
      // Grown, may a name already on two lines at the normal size end in …? Not on the
      // pairing board (a player looks for theirs there); on the final standings, where a
      // thirty-character name would otherwise keep every other row small.
      this.lenient = false;
      this.viewport = list.parentElement;
      this.indicator = indicator;
      // The pages as ranges of the list's rows, [first, end): a row rebuilt in place (its
      // data changed, not its height) stays on its page without laying the list out again.
      this.pages = [];
      this.index = 0;
      this.scale = 1;  // the rows' size against the normal one (fit)
    }

    // The rows of page `i` (the list's children from its first to its end).
    rowsOf(i) {
      const [first, end] = this.pages[i] || [0, 0];
      return Array.prototype.slice.call(this.list.children, first, end);
    }

    layout() {
      layouts += 1;
      const rows = Array.from(this.list.children);
      rows.forEach((row) => { row.hidden = false; });
      this.scope.style.removeProperty('--fit');
      this.setColumns(1, rows.length);
      loosen(this.list);
      if (PHONE.matches || rows.length === 0 || this.viewport.offsetParent === null) {
        this.pages = [[0, rows.length]];
        this.index = 0;
        this.show();
        return;
      }
      if (this.columns > 1 && FIT && this.inColumns(rows)) return;
      this.fit();
      const avail = this.avail();
      const pages = [];
      let first = 0;
      let top = 0;
      // (every row is read before any is written: one layout of the list, not one a row)
      rows.forEach((row, i) => {
        const box = row.getBoundingClientRect();
        if (i === first) top = box.top;
        if (i > first && box.bottom - top > avail + 0.5) {
          pages.push([first, i]);
          first = i;
          top = box.top;
        }
      });
      pages.push([first, rows.length]);
      this.pages = pages;
      this.index = Math.min(this.index, pages.length - 1);
      this.show();
    }

    // The room the list has: from its top to the bottom of its viewport.
    avail() {
      return this.viewport.getBoundingClientRect().bottom - this.list.getBoundingClientRect().top;
    }

    // The rows in `count` columns side by side (hall.css: a scope with class "columns" and
    // --rows, the rows a column), or in one.
    setColumns(count, rows) {
      this.scope.classList.toggle('columns', count > 1);
      this.scope.style.setProperty('--rows', String(Math.ceil(rows / count)));
    }

    // The whole list on one screen in columns, when its rows come out larger so than in one
    // column (with pages or not): a closed event's final standings. Says whether it did.
    inColumns(rows) {
      const single = this.fit();
      const whole = this.list.scrollHeight <= this.avail() + 0.5;
      this.scope.style.removeProperty('--fit');
      this.setColumns(this.columns, rows.length);
      const scale = this.fit();
      if (this.list.scrollHeight <= this.avail() + 0.5 && (!whole || scale > single + 0.05)) {
        this.pages = [[0, rows.length]];
        this.index = 0;
        this.show();
        return true;
      }
      this.scope.style.removeProperty('--fit');
      this.setColumns(1, rows.length);
      return false;
    }

    // Rows sized to the screen: a list a little too long for its viewport gets smaller rows
    // (down to MIN_FIT of the normal size) before it is cut into pages. Returns the size
    // given (1: the normal one).
    fit() {
      this.scale = 1;
      if (!FIT) return 1;
      const avail = this.avail();
      const needed = this.list.scrollHeight;
      if (avail <= 0 || needed <= 0) return 1;
      let scale = Math.min(this.grow, Math.max(MIN_FIT, Math.floor((avail / needed) * 1000) / 1000));
      if (scale === 1) return 1;
      const lines = new Map(scale > 1 ? nameLines(this.list) : []);  // (at the normal size)
      for (let i = 0; i < 12; i += 1) {  // borders and columns do not scale: settle in steps
        this.scope.style.setProperty('--fit', String(scale));
        // (the room is measured again: what is sized with the rows may take some of it)
        if (this.list.scrollHeight <= this.avail() + 0.5 || scale <= MIN_FIT) break;
        scale = Math.max(MIN_FIT, scale - 0.03);
      }
      // Grown to fill the screen, no name takes more lines than at the normal size: type so
      // large that 集美（集美区） takes two, or 思明区老年大学一队 four, is made smaller (a
      // name may break at other words: feed.js). On the final standings (`lenient`) a name
      // already on two lines may take more, and end in … Nor is type that no longer fits a
      // column of fixed width (20:3…, +1…), or splits a ruling: grown, nothing is cut.
      const longer = ([name, count]) => count > lines.get(name) &&
        !(this.lenient && lines.get(name) > 1);
      const broken = () => nameLines(this.list).some(longer) || cutCells(this.list).length > 0 ||
        splitRulings(this.list).length > 0;
      while (scale > 1 && broken()) {
        scale = Math.max(1, Math.round((scale - 0.05) * 1000) / 1000);
        this.scope.style.setProperty('--fit', String(scale));
      }
      this.scale = scale;
      return scale;
    }

    // Whether new text in the rows (rebuilt in place, or a clock's or a link's) is cut at the
    // grown size (待传 3 → 待传 1234): the list is then laid out again, its type smaller.
    outgrown() {
      return this.scale > 1 && cutCells(this.list).length > 0;
    }

    show() {
      const rows = this.list.children;
      const [first, end] = this.pages[this.index] || [0, rows.length];
      for (let i = 0; i < rows.length; i += 1) {
        const hidden = i < first || i >= end;
        if (rows[i].hidden !== hidden) rows[i].hidden = hidden;
      }
      const many = this.pages.length > 1;
      this.indicator.hidden = !many;
      const text = many ? this.label(this.rowsOf(this.index), this.index, this.pages.length) : '';
      if (this.indicator.textContent !== text) this.indicator.textContent = text;
    }

    // The page on screen again after rows were rebuilt in place (a new row is not hidden).
    reshow() {
      if (this.pages.length) this.show();
    }

    turn() {
      if (this.pages.length > 1) {
        this.index = (this.index + 1) % this.pages.length;
        this.show();
        turns += 1;
      }
    }
  }

  // The pairing board's page says which tables it shows: a player knows when theirs comes.
  function tablesOnPage(rows, index, count) {
    const tables = rows.map((row) => row.dataset.pairingTable).filter(Boolean);
    return tables.length
      ? t('pairings_page', { from: tables[0], to: tables[tables.length - 1], page: index + 1, pages: count })
      : `${index + 1}/${count}`;
  }

  let pagers = [];
  let standingsPager = null;  // (a closed event's final standings grow, in two columns)
  let tablesPager = null;
  let panelPager = null;
  let layouts = 0;           // pagers laid out (window.hall.layouts: what the tests count)
  let turns = 0;             // pages turned
  // Between rounds on a TV the standings stand beside the board while it fits one page
  // there (a player finds their table without waiting for a page to turn; its rows, if made
  // smaller, still larger than the tables' in play); else the board takes their room.
  function layoutPages() {
    const body = document.body;
    if (body.classList.contains('between') && !PHONE.matches) {
      body.classList.remove('board-only');
      panelPager.layout();
      if (panelPager.pages.length > 1) body.classList.add('board-only');
    }
    pagers.forEach((p) => p.layout());
  }

  // ---- rendering ---------------------------------------------------------------------

  function applyLanguage() {
    document.documentElement.lang = lang;
    document.querySelectorAll('[data-i18n]').forEach((node) => {
      node.textContent = t(node.dataset.i18n);
    });
    document.querySelectorAll('[data-i18n-label]').forEach((node) => {
      node.setAttribute('aria-label', t(node.dataset.i18nLabel));
    });
    document.querySelectorAll('#langs button').forEach((button) => {
      button.setAttribute('aria-pressed', String(button.dataset.lang === lang));
    });
  }

  function renderHeader() {
    const ev = snap && snap.event;
    // Before the first snapshot the page says nothing rather than "no event".
    $('event-name').textContent = ev ? ev.name : (snap ? t('no_event') : '…');
    document.title = ev ? `${ev.name} · ${t('title')}` : t('title');
    // The ruleset, said to be one (规则：…): its name alone read as a second title.
    const names = ev && ev.ruleset_name;
    const ruleset = ev ? ((names && (names[lang] || names[DEFAULT_LANG])) || ev.ruleset || '') : '';
    $('ruleset').textContent = ruleset ? t('ruleset', { name: ruleset }) : '';
    // A closed event: its final standings fill the screen (hall.css), the last round's
    // tables are history.
    const closed = Boolean(ev && ev.status === 'closed');
    document.body.classList.toggle('closed', closed);
    document.body.classList.toggle('individual', Boolean(ev && ev.format === 'individual-groups'));
    // a column that breaks no tie in this event (net levels, opponents' points) stays blank
    // (hall.css) rather than show every team's 0
    document.body.classList.toggle('no-net', Boolean(ev && !ev.net_levels));
    document.body.classList.toggle('no-opponents', Boolean(ev && !ev.opponents));
    const words = (ev && ev.wording) || '';
    if (words !== wording) {
      wording = words;
      applyLanguage();
    }
    const title = $('standings-title');
    title.dataset.i18n = closed ? 'standings_final' : 'standings';
    title.textContent = t(title.dataset.i18n);
    if (standingsPager) {
      standingsPager.grow = closed ? FINAL_GROW : LIVE_GROW;
      standingsPager.columns = closed ? 2 : 1;
      standingsPager.lenient = closed;
    }
    const round = $('round');
    if (ev && ev.round) {
      round.textContent = ev.rounds ? t('round', { n: ev.round, of: ev.rounds }) : t('round_open', { n: ev.round });
    } else {
      round.textContent = '';
    }
    $('muted').hidden = !(snap && snap.muted);
    // (the QR code's own address: the phones' page, /team, as /qr.svg draws it)
    const address = snap && snap.address ? `${snap.address}team` : '';
    const addressNode = $('address');
    if (addressNode.textContent !== address) {
      const img = $('qr-img');
      // The first address is the one /qr.svg already shows; a later change (a new
      // DHCP lease) asks for the code again.
      if (addressNode.dataset.seen) img.src = `/qr.svg?address=${encodeURIComponent(address)}`;
      addressNode.dataset.seen = '1';
      addressNode.replaceChildren(...addressParts(address));
      img.alt = address ? `QR: ${address}` : 'QR';
    }
  }

  // The rows of `list` for `items`: a row whose data is the same as when it was built is
  // kept as it is, one whose data changed is built again in its place, and the list's
  // children are replaced only when rows came, went or moved. Says whether the list's pages
  // must be laid out again: a row came, went or moved, or a rebuilt row's `shape` (the text
  // that can change its height: names, a result) changed. A hall of 500 tables changes a
  // few rows a patch; rebuilding and measuring all 1,500 of them took the page a second.
  function reconcile(list, items, keyOf, contentOf, build, shape) {
    const before = new Map();
    for (const node of list.children) before.set(node.hallKey, node);
    let moved = false;
    let reshaped = false;
    const nodes = items.map((item) => {
      const key = keyOf(item);
      const content = contentOf(item);
      const old = before.get(key);
      if (old && old.hallContent === content) return old;
      const node = build(item);
      node.hallKey = key;
      node.hallContent = content;
      node.hallShape = shape(node);
      if (old) {
        node.hidden = old.hidden;
        if (old.hallShape !== node.hallShape) reshaped = true;
        else keepLoose(old, node);
        old.replaceWith(node);
      } else {
        moved = true;
      }
      return node;
    });
    const children = list.children;
    if (moved || children.length !== nodes.length || nodes.some((node, i) => children[i] !== node)) {
      list.replaceChildren(...nodes);
      moved = true;
    }
    return moved || reshaped;
  }

  // What can change a row's height: the text of its names, its result, a late table's state.
  const shapeOf = (selector) => (node) => Array.from(node.querySelectorAll(selector),
    (part) => part.textContent).join('\u0001');

  function renderStandings() {
    const list = $('standings');
    const rows = (snap && snap.standings) || [];
    // Before any match is played every team would be 并列1: no places yet, a dash.
    const unplayed = rows.every((s) => !s.played);
    const changed = reconcile(list, rows, (s) => s.team,
      (s) => `${lang}\u0001${unplayed}\u0001${JSON.stringify(s)}`,
      (s) => standingRow(s, unplayed), shapeOf('.name, .tie'));
    list.parentElement.querySelector('.empty').hidden = rows.length > 0 || !snap;
    $('standings-box').classList.toggle('ties', !unplayed && rows.some((s) => s.tied));
    // after an individual event's finals a fifth place may have more big points than a
    // fourth: the places are the final groups', the points the finals' alone
    $('standings-hint').hidden = !rows.some((s) => s.prize);
    return changed;
  }

  function standingRow(s, unplayed) {
    {
      const row = el('div', 'srow standings-grid');
      row.setAttribute('role', 'row');
      row.dataset.team = String(s.team);
      // A team has a place once it has played or scored (a bye); the first three places by
      // rank (ties share one) stand out.
      const placed = s.played > 0 || s.points > 0;
      if (s.rank <= 3 && placed) row.classList.add('podium');
      const signed = typeof s.net === 'number' && s.net > 0 ? `+${s.net}` : s.net;
      // a groups event says whose rank it is: A1, B2 … or KO for the knockout
      const place = s.group ? `${s.group}${s.group === 'KO' ? ' ' : ''}${s.rank}` : `${s.rank}`;
      row.append(
        // (nothing played yet, here or by anyone: no place; a table still at its first
        // round's deals is not 并列 last with 0)
        unplayed || !placed ? el('span', 'rank', '—') : rankCell(place, s.tied),
        el('span', 'name', null),
        el('span', 'num points', s.points),
        el('span', 'num net', signed),
        el('span', 'num opponents', s.opponents),
        el('span', 'num played', s.played),
      );
      const name = row.querySelector('.name');  // the name shortens, never its marker
      const shown = label(s.name, [s.team], s.tells);
      name.append(putName(el('span', 'label'), shown));
      name.title = shown;
      if (s.withdrawn_after !== null && s.withdrawn_after !== undefined) {
        row.classList.add('withdrawn');
        name.append(el('span', 'mark', t('withdrawn')));
      } else if (s.prize) {  // an individual event's prize-final group
        name.append(el('span', 'mark', t('prize_group', { n: s.prize })));
      } else if (s.joined_round > 1) {
        name.append(el('span', 'mark', t('late_entry', { n: s.joined_round })));
      }
      return row;
    }
  }

  // A place, shared or not: 并列3 as the console says it (并列第 3 名), the 并列 smaller so
  // the numbers stay in line.
  function rankCell(place, tied) {
    const cell = el('span', 'rank');
    if (!tied) {
      cell.textContent = place;
      return cell;
    }
    cell.classList.add('tied');
    const [before, after] = t('rank_tied', { rank: '\u0000' }).split('\u0000');
    if (before) cell.append(el('span', 'tie', before));
    cell.append(document.createTextNode(place));
    if (after) cell.append(el('span', 'tie', after));
    return cell;
  }

  // The winner in a result: its name, or where the name is longer than RESULT_NAME columns
  // (a Chinese character takes two) its side, 南北胜: the cell is narrow and the whole name is
  // in its side's cell, in gold (a name of nineteen characters took three lines, and pushed
  // the last table onto a second page; cut, 「厦门港务集团有限公司工会…胜」 read as a cut).
  const RESULT_NAME = 24;
  function winnerName(table, side) {
    const name = side === 'NS' ? label(table.ns, table.ns_ids, table.tells)
      : label(table.ew, table.ew_ids, table.tells);
    return columns(name) > RESULT_NAME ? t(side === 'NS' ? 'col_ns' : 'col_ew') : name;
  }

  // The columns `text` takes (a Chinese character two), and those the narrow 状态 holds.
  const STATE_COLUMNS = 8;
  function columns(text) {
    let width = 0;
    for (const ch of text) width += ch.codePointAt(0) >= 0x2e80 ? 2 : 1;
    return width;
  }

  // A table's result: a ruling's bracket kept whole on one line (「…胜」⏎「（对方取消资格）」,
  // never 「（对方取消资」⏎「格）」).
  function resultNodes(table) {
    const result = table.result;
    if (result.winner === 'NS' || result.winner === 'EW') {
      const team = winnerName(table, result.winner);
      if (!result.ruling) return [t('won', { team })];
      const text = t('ruled_won', { team, kind: t(`kind_${result.ruling}`) });
      const bracket = Math.max(text.lastIndexOf('（'), text.lastIndexOf('('));
      return bracket > 0 ? [text.slice(0, bracket), el('span', 'ruling', text.slice(bracket))]
        : [text];
    }
    return [result.text || t('draw')];
  }

  function renderTables() {
    const list = $('tables');
    // Before round 1 is drawn every table would read 本轮不用: the list says the draw is to come.
    const undrawn = Boolean(snap && snap.event && !snap.event.round && !snap.pairings_round);
    const rows = (!undrawn && snap && snap.tables) || [];
    const byes = (snap && snap.byes) || [];  // a bye has no table: a row of its own
    const items = rows.map((tb) => ({ tb })).concat(byes.map((bye) => ({ bye })));
    const changed = reconcile(list, items,
      (item) => (item.tb ? `t${item.tb.table}` : `b${item.bye.team}`),
      // (the time left is the clock's, which tick() shows: not a change of the row)
      (item) => `${lang}\u0001${paused}\u0001${JSON.stringify(item.tb || item.bye,
        (key, value) => (key === 'time_left' ? undefined : value))}`,
      (item) => (item.tb ? tableRow(item.tb) : byeRow(item.bye)),
      shapeOf('.team, .phase.result, .late .phase'));
    // Every table's row reads its data now (a row kept as it was counts down from it).
    const children = list.children;
    rows.forEach((tb, i) => tableOf.set(children[i], tb));
    // 状态 narrow while every row's fits in it (the names take the room), else as wide as a
    // result needs (hall.css)
    $('tables-box').classList.toggle('wide-state', rows.some((tb) => tb.result || tb.late ||
      columns(named('phase', phaseOf(tb))) > STATE_COLUMNS));
    const empty = list.parentElement.querySelector('.empty');
    empty.textContent = t(undrawn ? 'empty_no_round' : 'empty_tables');
    empty.hidden = rows.length > 0 || !snap;
    return changed;
  }

  function byeRow(bye) {
    const row = el('div', 'trow tables-grid bye');
    row.setAttribute('role', 'row');
    row.dataset.bye = bye.team;
    row.append(el('span', 'no', '—'),
      el('span', 'team bye-team', t('bye_row', { team: label(bye.name, [bye.team], bye.tells) })));
    return row;
  }

  function tableRow(tb) {
    {
      const row = el('div', 'trow tables-grid');
      row.setAttribute('role', 'row');
      row.dataset.table = String(tb.table);
      row.dataset.phase = tb.phase || '';
      if (tb.late) row.classList.add('late');
      if (tb.result) row.classList.add('finished');

      const dealerSide = tb.dealer ? ('NS'.includes(tb.dealer) ? 'NS' : 'EW') : null;
      const winner = tb.result ? tb.result.winner : null;
      const team = (side, name) => {
        const node = putName(el('span', `team ${side.toLowerCase()}`), name);
        node.title = name || '';
        node.dataset.label = t(`col_${side.toLowerCase()}`);  // (said above it on a phone)
        if (dealerSide === side) node.classList.add('dealing');
        if (winner === side) node.classList.add('winner');
        return node;
      };

      const no = el('span', 'no', tb.table);
      no.dataset.label = t('col_table');
      const levels = el('span', 'levels');
      if (tb.levels) {
        // the side that won by moving past the final level reads 「过10」, not 10 : 10
        const level = (side) => (tb.past === side ? t('past', { level: tb.levels[side] })
          : tb.levels[side]);
        levels.append(el('span', 'lv-ns', level('NS')), el('span', 'lv-sep', ':'),
          el('span', 'lv-ew', level('EW')));
      } else {
        levels.textContent = '—';
      }
      const hand = el('span', 'hand', tb.hand ? tb.hand : '—');
      hand.dataset.label = t('col_hand');
      const dealer = el('span', 'dealer', tb.dealer ? named('seat', tb.dealer) : '—');
      dealer.dataset.label = t('col_dealer');

      const phase = el('span', 'phase');
      if (tb.result) {
        phase.classList.add('result');
        phase.append(...resultNodes(tb));
        phase.title = tb.result.text || '';
      } else {
        phase.textContent = tb.phase ? named('phase', phaseOf(tb)) : '';
      }
      if (tb.late) phase.prepend(el('span', 'late-badge', t('late')), ' ');  // (a line may break there)

      const time = el('span', 'time');
      time.dataset.label = t('col_time');
      if (tb.clock_running) time.classList.add('running');

      const link = el('span', 'link');
      const linkState = linkStateOf(tb);
      link.classList.add(`link-${linkState}`);
      link.dataset.state = linkState;

      // an individual event's table: its four players across the sides' and levels' columns
      const group = (tb.ns_ids || []).length > 2 && !(tb.ew_ids || []).length;
      const middle = group
        ? [putName(el('span', 'team players'), label(tb.ns, tb.ns_ids, tb.tells))]
        : [team('NS', label(tb.ns, tb.ns_ids, tb.tells)), levels,
          team('EW', label(tb.ew, tb.ew_ids, tb.tells))];
      row.append(no, ...middle, hand, dealer, phase, time, link);
      if (tb.phase === 'unused') row.classList.add('unused');
      if (tb.result && tb.result.ruling) row.classList.add('ruled');
      row.hallTime = time;
      row.hallLink = link;
      return row;
    }
  }

  // A table's phase as the hall shows it: a match its kiosk has not set up once the round
  // has started says so (未就绪, as the console says), not 空闲 as if the table were free.
  // While the head referee holds the hall paused, a table in play says 暂停 (the hall's
  // bar says why), not the step it stands at (出牌 beside a clock that stands still).
  let paused = false;
  function phaseOf(tb) {
    if (paused && heldByPause(tb.phase)) return 'paused';
    return tb.phase === 'idle' && tb.round ? 'not-set-up' : tb.phase;
  }

  // A table's link as the hall shows it. Before its round starts (等待开始) a kiosk not
  // heard from yet is no alarm for the players: it says so in grey (未连接), not 离线 in red.
  function linkStateOf(tb) {
    if (stale) return 'unknown';  // the hall's own data lost: no kiosk is known to be online
    const state = (tb.link && tb.link.state) || 'never';
    return state === 'offline' && tb.phase === 'waiting' ? 'never' : state;
  }

  // Between rounds (a round published, not started): its pairings fill the screen.
  function renderPanel() {
    const rows = (snap && snap.pairings) || [];
    const shown = Boolean(snap && snap.pairings_round && rows.length);
    document.body.classList.toggle('between', shown);
    $('panel').hidden = !shown;
    $('panel-title').textContent = shown ? t('pairings', { n: snap.pairings_round }) : '';
    // A big hall's board: one line a table, the sides said once, more tables a page.
    const dense = rows.length > DENSE_PAIRINGS;
    $('panel-list').classList.toggle('dense', dense);
    $('panel-hint').dataset.i18n = dense ? 'pairings_hint_dense' : 'pairings_hint';
    $('panel-hint').textContent = t($('panel-hint').dataset.i18n);
    const items = shown ? rows.map((p) => ({ p })).concat((snap.byes || []).map((bye) => ({ bye })))
      : [];
    return reconcile($('panel-list'), items,
      (item) => (item.p ? `p${item.p.table}` : `b${item.bye.team}`),
      (item) => `${lang}\u0001${JSON.stringify(item.p || item.bye)}`,
      (item) => (item.p ? pairingRow(item.p) : pairingBye(item.bye)), shapeOf('.pteams'));
  }

  function pairingRow(p) {
    const row = el('div', 'panel-row');
    row.setAttribute('role', 'row');
    row.dataset.pairingTable = String(p.table);
    const teams = el('span', 'pteams');
    teams.append(seated('ns', label(p.ns, p.ns_ids, p.tells)), el('span', 'vs', p.ew ? '—' : ''),
      p.ew ? seated('ew', label(p.ew, p.ew_ids, p.tells)) : el('span', 'team ew', ''));
    row.append(el('span', 'no', p.table), teams);
    return row;
  }

  function pairingBye(bye) {
    const row = el('div', 'panel-row bye');
    row.dataset.bye = bye.team;
    row.append(el('span', 'no', '—'),
      el('span', 'pteams', t('bye_row', { team: label(bye.name, [bye.team], bye.tells) })));
    return row;
  }

  // A team of the next round's pairings with the side it sits: 南北 or 东西.
  function seated(side, name) {
    const team = el('span', `team ${side}`);
    team.append(el('span', 'side', t(`col_${side}`)));
    return putName(team, name);
  }

  // What, outside the lists, takes room from them or gives it back: the header's lines, the
  // pairing board shown or not, a closed event's standings, the language.
  function frameOf() {
    return [lang, document.body.className, $('top').offsetHeight, $('panel').hidden,
      $('panel-list').className].join('\u0001');
  }

  let frame = '';
  let rendered = 0;          // renders done (window.hall.renders)
  let renderMs = 0;          // how long the last render took
  let renderEnd = 0;         // when it ended (performance.now())
  let renderTimer = 0;
  let shownGenerated = null; // the snapshot's time of the rows on screen (tick counts from it)
  const RENDER_EVERY = 0;    // ms between renders at least (more when a render is slow)
  const RENDER_SLACK = 2;    // a render waits this many times its own length after the last
  const RENDER_MAX_WAIT = 1000;

  // Draws the latest snapshot. Rows whose data did not change are kept, changed ones rebuilt
  // in place; a list's pages are laid out again (measured) only when its rows came, went,
  // moved or may have changed height, or when what is around it did.
  function render() {
    clearTimeout(renderTimer);
    renderTimer = 0;
    const started = performance.now();
    renderHeader();
    const standingsChanged = renderStandings();
    const tablesChanged = renderTables();
    const panelChanged = renderPanel();
    shownGenerated = snap && typeof snap.generated === 'number' ? snap.generated : null;
    const now = frameOf();
    // (new pairings may need the standings' room, or give it back: layoutPages)
    if (now !== frame || (panelChanged && document.body.classList.contains('between'))) {
      layoutPages();
      frame = frameOf();  // (with the board's room as layoutPages left it)
    } else {
      [[standingsPager, standingsChanged], [tablesPager, tablesChanged], [panelPager, panelChanged]]
        .forEach(([pager, changed]) => {
          if (!pager) return;
          if (changed || pager.outgrown()) pager.layout(); else pager.reshow();
        });
    }
    tick();
    rendered += 1;
    renderEnd = performance.now();
    renderMs = renderEnd - started;
  }

  // A render soon: patches that come while one waits are drawn together. It waits at least
  // RENDER_SLACK times as long as the last render took (at most RENDER_MAX_WAIT), so that a
  // big hall's renders never take the whole page: the clocks keep ticking, the pages turning.
  function scheduleRender() {
    if (renderTimer) return;
    const gap = Math.min(RENDER_MAX_WAIT, Math.max(RENDER_EVERY, RENDER_SLACK * renderMs));
    const wait = Math.max(0, renderEnd + gap - performance.now());
    renderTimer = setTimeout(render, wait);
  }

  // The event's status beside the round clock `rc`: never 比赛中 beside the clock's 等待开始
  // (a round's lead-in: 即将开始) or 本轮结束 (between rounds, as when the next round is
  // published and not started; after the last round, 全部轮次结束), nor while the head
  // referee has paused the hall (全场暂停); before the first round starts, 准备中 (no round
  // is over yet to rest between).
  function statusOf(ev, rc) {
    if (!ev) return '';
    if (ev.status !== 'running') return ev.status;
    if (rc.state === 'paused') return 'paused';
    if (snap.pairings_round === 1) return 'setup';  // round 1 published, not yet started
    if (rc.state === 'over' && ev.rounds && ev.round >= ev.rounds) return 'all_over';
    if (rc.state === 'running' && rc.label === 'clock_starts_in') return 'starting';
    return snap.pairings_round || rc.state === 'over' ? 'between' : 'running';
  }

  // What changes with the clock alone: the round clock, match clocks, link ages, staleness.
  function tick() {
    const now = serverNow();
    const clock = $('round-clock');
    const label = $('round-clock-label');
    // the same reading of the round clock as the phones' (feed.js)
    const rc = window.HallFeed.roundClock(snap && snap.round_clock, now);
    const clockValue = rc.up ? t('time_up') : (rc.seconds === null ? '—' : clockText(rc.seconds));
    clock.classList.toggle('paused', rc.state === 'paused');
    if (clock.textContent !== clockValue) clock.textContent = clockValue;
    if (label.textContent !== t(rc.label)) label.textContent = t(rc.label);
    // Nothing to count: the label says it alone, in the clock's place (本轮结束, not a dash
    // under it). With no round clock at all (or none yet: the page's first moments) the box
    // says nothing, and keeps its size: the lists are not laid out again when it comes.
    const none = rc.label === 'clock_none';
    const alone = rc.seconds === null && !rc.up && !none;
    if (clock.hidden !== alone) clock.hidden = alone;
    label.classList.toggle('alone', alone);
    clock.parentElement.classList.toggle('none', none);
    clock.classList.toggle('expired', rc.up);
    const status = $('status');
    const shown = statusOf(snap && snap.event, rc);
    const statusText = shown ? named('status', shown) : '';  // (in the language chosen now)
    if (status.dataset.status !== shown || status.textContent !== statusText) {
      status.textContent = statusText;
      status.dataset.status = shown;
    }
    setPaused(shown === 'paused');

    // (the rows count from the snapshot they were drawn from, not a newer one waiting)
    const generated = shownGenerated === null ? now : shownGenerated;
    // Only the rows on screen: a hall's other pages are brought up to date as they turn.
    const rows = $('tables').children;
    const [first, end] = (tablesPager && tablesPager.pages[tablesPager.index]) || [0, rows.length];
    let retexted = false;
    for (let i = first; i < Math.min(end, rows.length); i += 1) {
      const row = rows[i];
      const tb = tableOf.get(row);
      if (!tb) continue;  // a bye's row
      const time = row.hallTime;
      let text = '—';
      let out = false;
      if (typeof tb.time_left === 'number' && !tb.result) {
        const left = tb.clock_running ? tb.time_left - (now - generated) : tb.time_left;
        out = left <= 0;
        text = clockText(left);
      }
      if (time.textContent !== text) {
        time.textContent = text;
        retexted = true;
      }
      time.classList.toggle('expired', out);

      const link = row.hallLink;
      const info = tb.link || {};
      const state = linkStateOf(tb);
      if (link.dataset.state !== state) {  // (the feed lost or back: no new row for it)
        link.className = `link link-${state}`;
        link.dataset.state = state;
      }
      let linkText;
      if (state === 'behind') {
        linkText = t('link_behind', { n: info.behind || 0 });
      } else if (state === 'offline') {
        const minutes = typeof info.last_seen === 'number' ? Math.floor((now - info.last_seen) / 60) : 0;
        linkText = minutes >= 1 ? t('link_offline_for', { m: minutes }) : t('link_offline');
      } else {
        linkText = named('link', state);
      }
      if (link.textContent !== linkText) {
        link.textContent = linkText;
        retexted = true;
      }
    }
    if (retexted && tablesPager && tablesPager.outgrown()) tablesPager.layout();
    checkStale();
  }

  // The hall paused by the head referee: a bar across the screen under the header, the
  // clocks stood still (hall.css), until play resumes (`paused`: above, with the rows').
  function setPaused(value) {
    const banner = $('paused');
    const text = value ? t('paused_banner') : '';
    if (banner.textContent !== text) banner.textContent = text;
    if (value === paused) return;
    paused = value;
    document.body.classList.toggle('paused', value);
    banner.hidden = !value;
    renderTables();  // (their rows say 暂停 while it lasts)
    layoutPages();  // the bar takes room from the lists, or gives it back
  }

  // ---- the feed: first fetch, then server-sent events ----------------------------------

  function gotData() {
    lastData = performance.now();
    lastDataWall = Date.now();
    streamFailed = false;
    checkStale();
  }

  function checkStale() {
    const quiet = (performance.now() - lastData) / 1000 > STALE_SECONDS;
    setStale(streamFailed || quiet || crowded);
  }

  function setStale(value) {
    const banner = $('stale');
    if (value) {
      // Since when the data on screen is old: the last time any arrived, on the scorer's clock.
      const text = crowded ? t('crowded')
        : t('stale', { time: wallText(lastDataWall + offset * 1000) });
      if (banner.textContent !== text) banner.textContent = text;
    }
    if (value === stale) return;
    stale = value;
    document.body.classList.toggle('stale', value);
    banner.hidden = !value;
    layoutPages();  // the banner's bar takes room from the lists, or gives it back
  }

  // A new snapshot: kept at once, drawn soon (scheduleRender).
  function apply(data) {
    if (!data || typeof data !== 'object') return;
    setOffset(data.generated);
    snap = data;
    scheduleRender();
  }

  async function fetchSnapshot() {
    const seen = snapshotsSeen;
    const id = ++fetchesStarted;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 10000);
    try {
      const response = await fetch(SNAPSHOT_URL, { cache: 'no-store', signal: abort.signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      // A snapshot from the stream, or a later fetch, that came while this one was on its
      // way is newer.
      if (snapshotsSeen === seen && id > fetchApplied && !older(data)) {
        fetchApplied = id;
        apply(data);
      }
      gotData();
    } catch (err) {
      // the stream's error handling marks the page stale and tries again
    } finally {
      clearTimeout(timer);
    }
  }

  // A snapshot older than the one on screen (both numbered by the feed, since the same start).
  function older(data) {
    return Boolean(snap && data && typeof snap.serial === 'number' && data.boot === snap.boot &&
                   typeof data.serial === 'number' && data.serial < snap.serial);
  }

  // A patch from the stream: merged into the snapshot on screen (feed.js); when one is
  // missing, the whole snapshot is fetched again.
  function applyPatch(data) {
    const merged = window.HallFeed ? window.HallFeed.merge(snap, data) : null;
    if (merged === null) {
      fetchSnapshot();
      return;
    }
    snapshotsSeen += 1;
    if (merged !== snap) apply(merged);
    gotData();
  }

  function connect() {
    clearTimeout(reconnectTimer);
    if (source) source.close();
    // The stream starts from the snapshot on screen: only what changed since comes first
    // (everything, from a scorer started since: its serials count again).
    const since = snap && typeof snap.serial === 'number'
      ? `?since=${snap.serial}&boot=${encodeURIComponent(snap.boot)}` : '';
    const es = new EventSource(STREAM_URL + since);
    source = es;
    es.onopen = () => {
      if (source !== es) return;
      backoff = 1000;
      crowded = false;
      if (refetchOnOpen) {
        refetchOnOpen = false;
        fetchSnapshot();
      }
    };
    es.addEventListener('snapshot', (e) => {
      if (source !== es) return;
      let data;
      try { data = JSON.parse(e.data); } catch (err) { return; }
      snapshotsSeen += 1;
      apply(data);
      gotData();
    });
    es.addEventListener('patch', (e) => {
      if (source !== es) return;
      let data;
      try { data = JSON.parse(e.data); } catch (err) { return; }
      applyPatch(data);
    });
    es.addEventListener('ping', (e) => {
      if (source !== es) return;
      try { setOffset(JSON.parse(e.data).now); } catch (err) { /* a ping is a ping */ }
      gotData();
    });
    es.onerror = () => {
      if (source !== es) return;
      streamFailed = true;
      refetchOnOpen = true;
      checkStale();
      // The browser retries by itself while CONNECTING; once CLOSED (an HTTP error, a
      // wrong content type) it has given up, so we start again with a growing wait.
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        source = null;
        reconnectTimer = setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 30000);
        askWhyRefused();
      }
    };
  }

  // A stream refused: the scorer unreachable, or the hall full here (503, too many screens
  // from this address). Asked once a refusal (EventSource does not say), so that the banner
  // says which; while full, the snapshot is fetched at each try, so the screen keeps up.
  async function askWhyRefused() {
    const abort = new AbortController();
    let full = false;
    try {
      const response = await fetch(STREAM_URL, { cache: 'no-store', signal: abort.signal });
      const said = response.status === 503 ? await response.json() : null;
      full = Boolean(said && said.error === 'hall.too_many_viewers');
    } catch (err) {
      full = false;  // unreachable, or not the hall's refusal: the data is lost for now
    } finally {
      abort.abort();  // (a stream that opened after all is not kept: `connect` opens its own)
    }
    crowded = full;
    if (full) fetchSnapshot();
    checkStale();
  }

  // A stream that is open but silent (a half-open connection after a Wi-Fi drop never
  // errors) is started again once it has been quiet for three stale periods.
  function watchdog() {
    const quietSeconds = (performance.now() - lastData) / 1000;
    if (source && quietSeconds > 3 * STALE_SECONDS) {
      refetchOnOpen = true;
      lastData = performance.now() - STALE_SECONDS * 1000 - 1;  // stays stale, waits again
      connect();
    }
  }

  // ---- start -------------------------------------------------------------------------

  function setLanguage(next) {
    if (!LANGS.includes(next) || next === lang) return;
    lang = next;
    const url = new URL(location.href);
    url.searchParams.set('lang', lang);
    history.replaceState(null, '', url);
    applyLanguage();
    if (stale) setStale(true);
    render();
  }

  function start() {
    standingsPager = new Pager($('standings'), $('standings-pager'), LIVE_GROW, null, $('standings-box'));
    tablesPager = new Pager($('tables'), $('tables-pager'), LIVE_GROW);
    panelPager = new Pager($('panel-list'), $('panel-pager'), 1.6, tablesOnPage);
    pagers = [standingsPager, tablesPager, panelPager];
    document.querySelectorAll('#langs button').forEach((button) => {
      button.addEventListener('click', () => setLanguage(button.dataset.lang));
    });
    applyLanguage();
    render();
    setInterval(tick, 250);
    setInterval(watchdog, 1000);
    setInterval(() => {
      pagers.forEach((p) => p.turn());
      tick();  // the tables' new page shows its clocks now
    }, PAGE_SECONDS * 1000);
    let resizeTimer = 0;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(layoutPages, 150);
    });
    PHONE.addEventListener('change', layoutPages);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(layoutPages);
    // The first paint comes from GET /api/hall; then the stream starts from that snapshot
    // (a change between the two comes first on it).
    fetchSnapshot().finally(connect);
  }

  window.hall = {
    I18N,
    get lang() { return lang; },
    get snapshot() { return snap; },
    get offset() { return offset; },
    // (what the tests and bench/bench_hall_page.py count: renders, pagers laid out, pages turned)
    get renders() { return rendered; },
    get layouts() { return layouts; },
    get turns() { return turns; },
  };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
