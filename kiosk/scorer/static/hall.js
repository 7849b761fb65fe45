// The hall page: a read-only leaderboard for the hall's TVs and phones.
//
// First paint from GET /api/hall, then server-sent events from /api/hall/stream
// ("snapshot" with the same JSON, "ping" with the scorer's time). Clocks count down
// locally against the scorer's clock (the offset between its time and ours), so a TV
// whose own clock is wrong still shows the right time. Every name from the server is
// put on the page as text (textContent), never as HTML.
//
// URL parameters: lang=zh-Hans|zh-Hant|en, page_seconds=N (page turns, default 10),
// stale_seconds=N (how long without data before the page says the feed is lost, default 12).
(function () {
  'use strict';

  const I18N = {
    'zh-Hans': {
      title: '赛场实时成绩',
      language: '语言',
      no_event: '尚无赛事',
      round: '第 {n}/{of} 轮',
      round_open: '第 {n} 轮',
      status_setup: '准备中',
      status_running: '比赛中',
      status_between: '轮间休息',
      status_closed: '已结束',
      clock_left: '本轮剩余',
      clock_elapsed: '本轮已用',
      clock_none: '本轮计时',
      time_up: '时间到',
      muted: '静音',
      standings: '排名',
      col_rank: '名次',
      col_team: '队伍',
      col_points: '积分',
      col_net: '净级',
      col_opponents: '对手分',
      col_played: '已赛',
      tables: '各桌实况',
      col_table: '桌',
      col_ns: '南北',
      col_ew: '东西',
      col_levels: '级',
      col_hand: '副',
      col_dealer: '庄',
      col_phase: '状态',
      col_time: '剩余',
      col_link: '连线',
      phase_setup: '设置',
      phase_ready: '发牌前',
      phase_bury: '扣底',
      phase_play: '出牌',
      phase_entry: '录入得分',
      phase_result: '本副结果',
      phase_disputed: '争议',
      phase_over: '比赛结束',
      phase_idle: '空闲',
      seat_N: '北',
      seat_E: '东',
      seat_S: '南',
      seat_W: '西',
      late: '超时',
      link_ok: '在线',
      link_behind: '待传 {n}',
      link_offline: '离线',
      link_offline_for: '离线 {m} 分',
      link_never: '未连接',
      won: '{team} 胜',
      draw: '平局',
      pairings: '第 {n} 轮对阵',
      scan: '手机扫码查看',
      stale: '数据已中断 {time} 起',
      empty_standings: '暂无排名',
      empty_tables: '暂无比赛桌',
    },
    'zh-Hant': {
      title: '賽場即時成績',
      language: '語言',
      no_event: '尚無賽事',
      round: '第 {n}/{of} 輪',
      round_open: '第 {n} 輪',
      status_setup: '準備中',
      status_running: '比賽中',
      status_between: '輪間休息',
      status_closed: '已結束',
      clock_left: '本輪剩餘',
      clock_elapsed: '本輪已用',
      clock_none: '本輪計時',
      time_up: '時間到',
      muted: '靜音',
      standings: '排名',
      col_rank: '名次',
      col_team: '隊伍',
      col_points: '積分',
      col_net: '淨級',
      col_opponents: '對手分',
      col_played: '已賽',
      tables: '各桌實況',
      col_table: '桌',
      col_ns: '南北',
      col_ew: '東西',
      col_levels: '級',
      col_hand: '副',
      col_dealer: '莊',
      col_phase: '狀態',
      col_time: '剩餘',
      col_link: '連線',
      phase_setup: '設定',
      phase_ready: '發牌前',
      phase_bury: '扣底',
      phase_play: '出牌',
      phase_entry: '錄入得分',
      phase_result: '本副結果',
      phase_disputed: '爭議',
      phase_over: '比賽結束',
      phase_idle: '空閒',
      seat_N: '北',
      seat_E: '東',
      seat_S: '南',
      seat_W: '西',
      late: '超時',
      link_ok: '在線',
      link_behind: '待傳 {n}',
      link_offline: '離線',
      link_offline_for: '離線 {m} 分',
      link_never: '未連接',
      won: '{team} 勝',
      draw: '平局',
      pairings: '第 {n} 輪對陣',
      scan: '手機掃碼查看',
      stale: '資料已中斷 {time} 起',
      empty_standings: '暫無排名',
      empty_tables: '暫無比賽桌',
    },
    en: {
      title: 'Live results',
      language: 'Language',
      no_event: 'No event yet',
      round: 'Round {n}/{of}',
      round_open: 'Round {n}',
      status_setup: 'Setting up',
      status_running: 'In play',
      status_between: 'Between rounds',
      status_closed: 'Closed',
      clock_left: 'Round time left',
      clock_elapsed: 'Round time used',
      clock_none: 'Round clock',
      time_up: 'Time up',
      muted: 'Muted',
      standings: 'Standings',
      col_rank: '#',
      col_team: 'Team',
      col_points: 'Pts',
      col_net: 'Net',
      col_opponents: 'Opp',
      col_played: 'Pld',
      tables: 'Tables',
      col_table: 'Tbl',
      col_ns: 'N–S',
      col_ew: 'E–W',
      col_levels: 'Levels',
      col_hand: 'Hand',
      col_dealer: 'Dlr',
      col_phase: 'State',
      col_time: 'Left',
      col_link: 'Link',
      phase_setup: 'Setup',
      phase_ready: 'Dealing',
      phase_bury: 'Burying',
      phase_play: 'Playing',
      phase_entry: 'Scoring',
      phase_result: 'Result',
      phase_disputed: 'Disputed',
      phase_over: 'Match over',
      phase_idle: 'Idle',
      seat_N: 'N',
      seat_E: 'E',
      seat_S: 'S',
      seat_W: 'W',
      late: 'Late',
      link_ok: 'OK',
      link_behind: '{n} unsent',
      link_offline: 'Offline',
      link_offline_for: 'Off {m} min',
      link_never: 'No link',
      won: '{team} won',
      draw: 'Draw',
      pairings: 'Round {n} pairings',
      scan: 'Scan to follow on a phone',
      stale: 'Feed lost since {time}',
      empty_standings: 'No standings yet',
      empty_tables: 'No tables yet',
    },
  };
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
  const STREAM_URL = '/api/hall/stream';
  const SNAPSHOT_URL = '/api/hall';

  let lang = LANGS.includes(params.get('lang')) ? params.get('lang') : DEFAULT_LANG;
  let snap = null;           // the latest snapshot
  let offset = 0;            // scorer time minus browser time, seconds
  let lastData = performance.now();  // when data last arrived (monotonic ms)
  let lastDataWall = Date.now();     // the same moment on the browser's clock (ms)
  let streamFailed = false;  // the stream errored and no data has come since
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

  function t(key, vars) {
    let text = I18N[lang][key];
    if (text === undefined) text = I18N[DEFAULT_LANG][key];
    if (text === undefined) return key;
    if (vars) {
      text = text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
    }
    return text;
  }

  // The label for a value the server sends (a phase, a status, a seat); a value this page
  // does not know yet is shown as it came rather than as a missing key.
  function named(prefix, value) {
    const key = `${prefix}_${value}`;
    return key in I18N[DEFAULT_LANG] ? t(key) : String(value);
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

  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, '0');
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${String(m).padStart(2, '0')}:${ss}`;
  }

  function wallText(ms) {
    const d = new Date(ms);
    return [d.getHours(), d.getMinutes(), d.getSeconds()]
      .map((n) => String(n).padStart(2, '0')).join(':');
  }

  // ---- pages that turn by themselves -------------------------------------------------

  // A pager shows as many rows of a list as fit its viewport, one page at a time.
  class Pager {
    constructor(list, indicator) {
      this.list = list;
      this.viewport = list.parentElement;
      this.indicator = indicator;
      this.pages = [];
      this.index = 0;
    }

    layout() {
      const rows = Array.from(this.list.children);
      rows.forEach((row) => { row.hidden = false; });
      if (PHONE.matches || rows.length === 0 || this.viewport.offsetParent === null) {
        this.pages = [rows];
        this.index = 0;
        this.show();
        return;
      }
      const bottom = this.viewport.getBoundingClientRect().bottom;
      const avail = bottom - this.list.getBoundingClientRect().top;
      const pages = [];
      let page = [];
      let top = 0;
      for (const row of rows) {
        const box = row.getBoundingClientRect();
        if (page.length === 0) top = box.top;
        if (page.length > 0 && box.bottom - top > avail + 0.5) {
          pages.push(page);
          page = [];
          top = box.top;
        }
        page.push(row);
      }
      pages.push(page);
      this.pages = pages;
      this.index = Math.min(this.index, pages.length - 1);
      this.show();
    }

    show() {
      this.pages.forEach((page, i) => page.forEach((row) => { row.hidden = i !== this.index; }));
      const many = this.pages.length > 1;
      this.indicator.hidden = !many;
      this.indicator.textContent = many ? `${this.index + 1}/${this.pages.length}` : '';
    }

    turn() {
      if (this.pages.length > 1) {
        this.index = (this.index + 1) % this.pages.length;
        this.show();
      }
    }
  }

  let pagers = [];
  function layoutPages() { pagers.forEach((p) => p.layout()); }

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
    const names = ev && ev.ruleset_name;
    $('ruleset').textContent = ev ? ((names && (names[lang] || names[DEFAULT_LANG])) || ev.ruleset || '') : '';
    const round = $('round');
    if (ev && ev.round) {
      round.textContent = ev.rounds ? t('round', { n: ev.round, of: ev.rounds }) : t('round_open', { n: ev.round });
    } else {
      round.textContent = '';
    }
    const status = $('status');
    status.textContent = ev && ev.status ? named('status', ev.status) : '';
    status.dataset.status = ev && ev.status ? ev.status : '';
    $('muted').hidden = !(snap && snap.muted);
    const address = snap && snap.address ? snap.address : '';
    const addressNode = $('address');
    if (addressNode.textContent !== address) {
      const img = $('qr-img');
      // The first address is the one /qr.svg already shows; a later change (a new
      // DHCP lease) asks for the code again.
      if (addressNode.dataset.seen) img.src = `/qr.svg?address=${encodeURIComponent(address)}`;
      addressNode.dataset.seen = '1';
      addressNode.textContent = address;
      img.alt = address ? `QR: ${address}` : 'QR';
    }
  }

  function renderStandings() {
    const list = $('standings');
    const rows = (snap && snap.standings) || [];
    list.replaceChildren(...rows.map((s) => {
      const row = el('div', 'srow standings-grid');
      row.setAttribute('role', 'row');
      row.dataset.team = String(s.team);
      const signed = typeof s.net === 'number' && s.net > 0 ? `+${s.net}` : s.net;
      const rank = s.tied ? `${s.rank}=` : `${s.rank}`;
      row.append(  // a groups event says whose rank it is: A1, B2 … or KO for the knockout
        el('span', 'rank', s.group ? `${s.group}${s.group === 'KO' ? ' ' : ''}${rank}` : rank),
        el('span', 'name', s.name),
        el('span', 'num points', s.points),
        el('span', 'num net', signed),
        el('span', 'num opponents', s.opponents),
        el('span', 'num played', s.played),
      );
      row.querySelector('.name').title = s.name;
      return row;
    }));
    list.parentElement.querySelector('.empty').hidden = rows.length > 0 || !snap;
  }

  function resultText(table) {
    const result = table.result;
    if (result.winner === 'NS' || result.winner === 'EW') {
      return t('won', { team: result.winner === 'NS' ? table.ns : table.ew });
    }
    return result.text || t('draw');
  }

  function renderTables() {
    const list = $('tables');
    const rows = (snap && snap.tables) || [];
    list.replaceChildren(...rows.map((tb) => {
      const row = el('div', 'trow tables-grid');
      row.setAttribute('role', 'row');
      row.dataset.table = String(tb.table);
      row.dataset.phase = tb.phase || '';
      if (tb.late) row.classList.add('late');
      if (tb.result) row.classList.add('finished');

      const dealerSide = tb.dealer ? ('NS'.includes(tb.dealer) ? 'NS' : 'EW') : null;
      const winner = tb.result ? tb.result.winner : null;
      const team = (side, name) => {
        const node = el('span', `team ${side.toLowerCase()}`, name);
        node.title = name || '';
        if (dealerSide === side) node.classList.add('dealing');
        if (winner === side) node.classList.add('winner');
        return node;
      };

      const no = el('span', 'no', tb.table);
      no.dataset.label = t('col_table');
      const levels = el('span', 'levels');
      if (tb.levels) {
        levels.append(el('span', 'lv-ns', tb.levels.NS), el('span', 'lv-sep', ':'),
          el('span', 'lv-ew', tb.levels.EW));
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
        phase.textContent = resultText(tb);
        phase.title = tb.result.text || '';
      } else {
        phase.textContent = tb.phase ? named('phase', tb.phase) : '';
      }
      if (tb.late) phase.prepend(el('span', 'late-badge', t('late')));

      const time = el('span', 'time');
      time.dataset.label = t('col_time');
      if (tb.clock_running) time.classList.add('running');

      const link = el('span', 'link');
      const linkState = (tb.link && tb.link.state) || 'never';
      link.classList.add(`link-${linkState}`);
      link.dataset.state = linkState;

      row.append(no, team('NS', tb.ns), levels, team('EW', tb.ew), hand, dealer, phase, time, link);
      tableOf.set(row, tb);
      return row;
    }));
    list.parentElement.querySelector('.empty').hidden = rows.length > 0 || !snap;
  }

  function renderPairings() {
    const box = $('pairings-box');
    const rows = (snap && snap.pairings) || [];
    const shown = Boolean(snap && snap.pairings_round && rows.length);
    box.hidden = !shown;
    $('pairings-title').textContent = shown ? t('pairings', { n: snap.pairings_round }) : '';
    $('pairings').replaceChildren(...(shown ? rows : []).map((p) => {
      const row = el('div', 'prow');
      row.setAttribute('role', 'row');
      row.dataset.pairingTable = String(p.table);
      const teams = el('span', 'pteams');
      teams.append(el('span', 'team ns', p.ns), el('span', 'team ew', p.ew));
      row.append(el('span', 'no', p.table), teams);
      return row;
    }));
  }

  function render() {
    renderHeader();
    renderStandings();
    renderTables();
    renderPairings();
    tick();
    layoutPages();
  }

  // What changes with the clock alone: the round clock, match clocks, link ages, staleness.
  function tick() {
    const now = serverNow();
    const rc = snap && snap.round_clock;
    const clock = $('round-clock');
    const label = $('round-clock-label');
    let clockValue = '—';
    let labelKey = 'clock_none';
    let expired = false;
    if (rc && typeof rc.started_at === 'number') {
      if (typeof rc.minutes === 'number') {
        const left = rc.started_at + rc.minutes * 60 - now;
        labelKey = 'clock_left';
        expired = left <= 0;
        clockValue = expired ? t('time_up') : clockText(left);
      } else {
        labelKey = 'clock_elapsed';
        clockValue = clockText(now - rc.started_at);
      }
    }
    if (clock.textContent !== clockValue) clock.textContent = clockValue;
    if (label.textContent !== t(labelKey)) label.textContent = t(labelKey);
    clock.classList.toggle('expired', expired);

    const generated = snap && typeof snap.generated === 'number' ? snap.generated : now;
    for (const row of $('tables').children) {
      const tb = tableOf.get(row);
      const time = row.querySelector('.time');
      let text = '—';
      let out = false;
      if (typeof tb.time_left === 'number' && !tb.result) {
        const left = tb.clock_running ? tb.time_left - (now - generated) : tb.time_left;
        out = left <= 0;
        text = clockText(left);
      }
      if (time.textContent !== text) time.textContent = text;
      time.classList.toggle('expired', out);

      const link = row.querySelector('.link');
      const info = tb.link || {};
      let linkText;
      if (info.state === 'behind') {
        linkText = t('link_behind', { n: info.behind || 0 });
      } else if (info.state === 'offline') {
        const minutes = typeof info.last_seen === 'number' ? Math.floor((now - info.last_seen) / 60) : 0;
        linkText = minutes >= 1 ? t('link_offline_for', { m: minutes }) : t('link_offline');
      } else {
        linkText = named('link', info.state || 'never');
      }
      if (link.textContent !== linkText) link.textContent = linkText;
    }
    checkStale();
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
    setStale(streamFailed || quiet);
  }

  function setStale(value) {
    const banner = $('stale');
    if (value) {
      // Since when the data on screen is old: the last time any arrived, on the scorer's clock.
      const text = t('stale', { time: wallText(lastDataWall + offset * 1000) });
      if (banner.textContent !== text) banner.textContent = text;
    }
    if (value === stale) return;
    stale = value;
    document.body.classList.toggle('stale', value);
    banner.hidden = !value;
  }

  function apply(data) {
    if (!data || typeof data !== 'object') return;
    setOffset(data.generated);
    snap = data;
    render();
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

  // A snapshot older than the one on screen (both numbered by the feed).
  function older(data) {
    return Boolean(snap && data && typeof snap.serial === 'number' &&
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
    // The stream starts from the snapshot on screen: only what changed since comes first.
    const since = snap && typeof snap.serial === 'number' ? `?since=${snap.serial}` : '';
    const es = new EventSource(STREAM_URL + since);
    source = es;
    es.onopen = () => {
      if (source !== es) return;
      backoff = 1000;
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
      }
    };
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
    pagers = [
      new Pager($('standings'), $('standings-pager')),
      new Pager($('tables'), $('tables-pager')),
      new Pager($('pairings'), $('pairings-pager')),
    ];
    document.querySelectorAll('#langs button').forEach((button) => {
      button.addEventListener('click', () => setLanguage(button.dataset.lang));
    });
    applyLanguage();
    render();
    setInterval(tick, 250);
    setInterval(watchdog, 1000);
    setInterval(() => pagers.forEach((p) => p.turn()), PAGE_SECONDS * 1000);
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
  };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
