// The game screen: a seat's game (Follow), a game at one keyboard (both
// seats followed, each ply sent with the token of the seat to move), or a
// spectator's (Watch). The board takes clicks, taps and keys; the strips
// above and below it show each seat's name, clock, walls or captures; the
// side panel has the move list and the resign and draw buttons (a
// player's are under the board on a phone, on the first screen); the end
// of the game brings the result with the rating change and a rematch.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, errorText, matchHeaders, ConnectError, Code } from "../api";
import { RematchStatus, UnratedReason } from "../gen/tabuleiro/lobby/v1/lobby_pb";
import { banqiSeatColour, capturedSvg, layoutFor, renderBoard, type PreviewState } from "../board";
import { formatClock, LONG_ABSENCE_MS, lowTime, remainingMs, returnText, ServerClock } from "../clock";
import { banqiHint, firstPlyWarning, hasKeyboard, legalWallHint, wallHint } from "../hints";
import { cornersMoveLine, returnHomeLoses } from "../corners";
import { bannerOnly, clockSnapshot, FeedLoop, type FeedStatus, type StreamMessage } from "../feed";
import { sawEnd } from "../record";
import { pieceStyle } from "../pieces";
import { BotLevel, Game, Seat, type Participant, type Variant } from "../gen/tabuleiro/game/v1/game_pb";
import type { BanqiCell, GameView } from "../gen/tabuleiro/game/v1/view_pb";
import { ConnectionState, MatchStatus, type Match } from "../gen/tabuleiro/match/v1/match_pb";
import { PlyKind, type LegalPly, type PlyCheck } from "../gen/tabuleiro/match/v1/match_service_pb";
import {
  moveCursor,
  nearestWall,
  parseSquare,
  squareAt,
  squareName,
  pointerWall,
  wallName,
  wallsConflict,
  parseWall,
  type Layout,
  type Orientation,
  type Wall,
} from "../geometry";
import { banqiInfo, banqiLetters, gameName, levelRating, levelTitle, moveRows, otherSeat, outcomeClass, outcomeLine, outcomeTitle, playerName, refusalText, seatColour, timeControlText, variantName, yourPawn } from "../notation";
import type { Identity } from "../session";
import { frame, me, partner, piecesMenu, ratingText, session, variants } from "./shell";
import { playerLink } from "./profile";
import { loadOrigin, start, type Origin } from "./start";
import { SpectatorPanel } from "./spectate";
import { clear, clearError, h, svg, toast } from "./dom";
import { num, t } from "../i18n";
import { checkText, squareRefusal, wallRefusal } from "../messages";

type Mode = "seat" | "local" | "spectator";

/** SPECTATORS_REFRESH_MS is how often a player's page reads how many watch the game. */
const SPECTATORS_REFRESH_MS = 5000;

export class GameScreen {
  private loops: FeedLoop[] = [];
  private readonly server = new ServerClock();
  private match: Match | undefined;
  private previousPawn: string | undefined;
  private tokens = new Map<Seat, string>();
  private selected: string | undefined;
  private legal: LegalPly[] = [];
  private destinations: string[] = [];
  private preview: { wall: Wall; state: PreviewState } | undefined;
  private wallMode = false;
  /**
   * wallStart: wall mode was just entered and the wall cursor not moved or
   * turned since; if its wall cannot be placed, the cursor goes to the
   * nearest legal wall (toNearestLegalWall), as the terminal's does.
   */
  private wallStart = false;
  /** cursorVerdict: the wall at the keyboard cursor in wall mode, and whether it may go down (for the hint). */
  private cursorVerdict: { name: string; state: PreviewState; reason: string; check?: PlyCheck } | undefined;
  private confirmingResign = false; // the in-page "Resign this game?" is showing
  /** confirmingReturn: a Corners ply back into the mover's own home after the deadline (C5.2, it loses), asked about before it is sent. */
  private confirmingReturn: { notation: string; to: string } | undefined;
  private leavingTo: string | undefined; // a link the player was asked about leaving the game for
  private orientation: Orientation = "h";
  private cursor: string | undefined;
  private busy = false;
  /**
   * superseded: another tab or window of this player took the seat's
   * stream (ABORTED). This page's position may be stale, so its board is
   * locked until the player presses "Play here" (which reloads).
   */
  private superseded = false;
  /** savedGame is the game this browser was playing before this screen opened (put back if the screen turns out to be a spectator's). */
  private savedGame = session.game;
  private status: FeedStatus = "connecting";
  private timer: ReturnType<typeof setInterval> | undefined;
  private checkSeq = 0;
  private checks = new Map<string, { legal: boolean; reason: string; check?: PlyCheck }>();
  /** asking: the walls being asked about now (askWall), by position and name. */
  private asking = new Map<string, Promise<{ legal: boolean; reason: string }>>();
  private resultShownFor = "";
  private readonly rematchCtl = new AbortController();
  private rematchWatched = false;
  private shownPlies = -1;
  private variantList: Variant[] | undefined;
  private boardFocused = false; // the board took the focus once, when the game first showed
  /** touch: the last pointer was a finger or pen (the hint says "tap"), else a mouse ("click"). */
  private touch = typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches;
  private readonly els = {
    board: h("div", { class: "board-box", tabindex: 0, "aria-label": t("board.label") }),
    top: h("div", { class: "strip top-strip" }),
    bottom: h("div", { class: "strip bottom-strip" }),
    moves: h("ol", { class: "moves", "aria-label": t("moves") }),
    actions: h("div", { class: "game-actions" }),
    panel: h("section", { class: "panel game-panel" }),
    info: h("div", { class: "game-info" }),
    banner: h("div", { class: "conn-banner", role: "status", "aria-live": "polite" }),
    overlay: h("div", { class: "result-overlay", hidden: true }),
    hint: h("p", { class: "hint" }),
    // Where the hint is: messages (a refusal and its reason) show there,
    // in place of the hint, covering neither the board nor its controls.
    hintBox: h("div", { class: "hint-box", "data-toast-slot": "" }),
    announce: h("p", { class: "sr", "aria-live": "polite", role: "status" }),
    tools: h("div", { class: "board-tools" }),
  };
  /** layout holds the game's columns; it shows its banner alone when there is no game to show (bannerOnly). */
  private readonly layout: HTMLElement;
  /** oneColumn matches the phone's layout (styles.css: max-width 860px), where the side panel comes under the board, below the first screen. */
  private readonly oneColumn = typeof matchMedia === "function" ? matchMedia("(max-width: 860px)") : undefined;
  /**
   * placeActions puts a player's actions (resign, draw, the questions
   * before them) right under the bottom strip in one column, where a phone
   * shows them without scrolling, the board as wide as the screen; else,
   * and for a spectator (no resign), after the side panel's moves.
   */
  private readonly placeActions = (): void => {
    if (this.mode !== "spectator" && this.oneColumn?.matches) this.els.bottom.after(this.els.actions);
    else this.els.moves.after(this.els.actions);
  };

  constructor(private readonly id: Identity, private readonly matchId: string, private readonly mode: Mode) {
    this.layout = h("div", { class: mode === "spectator" ? "game-layout spectating" : "game-layout" },
      h("div", { class: "board-col" }, this.els.banner, this.els.top, h("div", { class: "board-wrap" }, this.els.board, this.els.overlay), this.els.bottom, this.els.tools),
      h("aside", { class: "side-col" }, this.els.panel), this.els.announce);
    this.els.panel.append(this.els.info, this.els.moves, this.els.actions);
    frame(id, this.layout);
    this.placeActions();
    this.oneColumn?.addEventListener("change", this.placeActions);
    this.els.hintBox.append(this.els.hint);
    if (mode === "spectator") {
      // A spectator's board takes no plies: not a keyboard stop, no focus ring.
      this.els.board.removeAttribute("tabindex");
      this.els.board.setAttribute("aria-label", t("board"));
    }
    this.bindBoard();
    void this.start();
  }

  /** relocalize redraws the screen in a new language or piece style, keeping the game, its streams and the result shown. */
  relocalize(): void {
    frame(this.id, this.layout); // the header in the new language; the game's own elements stay
    piecesMenu(this.view?.game === Game.BANQI);
    this.els.board.setAttribute("aria-label", this.mode === "spectator" ? t("board") : t("board.label"));
    this.els.moves.setAttribute("aria-label", t("moves"));
    this.renderBanner(this.bannerErr);
    if (!this.match) return;
    // The spectators' panel is built in the language of its first showing:
    // built again by render.
    this.spectatorPanel?.el.remove();
    this.spectatorPanel = undefined;
    this.render();
    if (!this.els.overlay.hidden) void this.showResult(true);
  }

  dispose(): void {
    if (this.spectatorTimer) clearInterval(this.spectatorTimer);
    document.removeEventListener("click", this.onLinkClick, true);
    this.rematchCtl.abort();
    for (const l of this.loops) l.stop();
    if (this.timer) clearInterval(this.timer);
    window.removeEventListener("keydown", this.onKey);
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    this.oneColumn?.removeEventListener("change", this.placeActions);
  }

  /** onLinkClick asks first when a link would take the player away from a
   * game in progress against a person (leaving it starts the seat's
   * reconnection window); any other link goes at once. */
  private readonly onLinkClick = (e: MouseEvent): void => {
    // A link that opens a new tab (a rule's) leaves the game where it is.
    const link = e.target instanceof Element ? e.target.closest("a[href^='#/']:not([target=_blank])") : null;
    const href = link?.getAttribute("href");
    const m = this.match;
    if (!href || href === location.hash || href === `#/game/${this.matchId}` || this.mode !== "seat" || !m ||
      m.status === MatchStatus.FINISHED || this.vsBot() || this.superseded) return; // a tab taken over leaves nothing behind
    e.preventDefault();
    e.stopPropagation();
    this.leavingTo = href;
    this.renderActions();
  };

  /** onOnline: the browser has a network again; show the destinations that could not be fetched. */
  private readonly onOnline = (): void => {
    this.renderBanner();
    if (!this.destinations.length) void this.autoSelect();
  };

  private readonly onOffline = (): void => {
    this.els.banner.className = "conn-banner reconnecting";
    this.els.banner.textContent = t("conn.offline");
  };

  // ---- streams ----

  private async start(): Promise<void> {
    const saved = session.game;
    const lastSeq = saved?.matchId === this.matchId ? BigInt(saved.lastSeq) : 0n;
    if (this.mode === "spectator") {
      this.loops.push(this.loop(this.id.token, (seq, signal) => api(this.id.token).match.watch({ matchId: this.matchId, lastSeq: seq }, { signal, headers: matchHeaders(this.matchId) }) as AsyncIterable<{ message: StreamMessage }>, 0n, true));
    } else {
      if (saved?.matchId !== this.matchId) session.game = { matchId: this.matchId, lastSeq: "0", local: this.mode === "local" };
      this.loops.push(this.loop(this.id.token, (seq, signal) => this.follow(this.id.token, seq, signal), lastSeq, true));
      if (this.mode === "local") {
        const p = await partner();
        this.loops.push(this.loop(p.token, (seq, signal) => this.follow(p.token, seq, signal), lastSeq, false));
      }
    }
    this.timer = setInterval(() => this.tickClocks(), 100);
    void variants().then((vs) => {
      this.variantList = vs;
      if (this.match) this.render();
    }).catch(() => {});
    window.addEventListener("keydown", this.onKey);
    document.addEventListener("click", this.onLinkClick, true);
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    // Draw the position at once from GetMatch; the stream's snapshot or
    // events take over (a snapshot that arrived first is not replaced).
    try {
      const r = await api(this.id.token).match.getMatch({ matchId: this.matchId });
      const primary = this.loops[0];
      if (r.match && this.mode === "seat" && r.match.yourSeat === Seat.UNSPECIFIED) {
        this.toWatch();
        return;
      }
      if (r.match && primary && !primary.feed.match && !primary.stopped) {
        primary.feed.apply({ case: "snapshot", value: r.match });
        this.match = primary.feed.match;
        this.shownPlies = r.match.plies.length;
        if (r.match.yourSeat !== Seat.UNSPECIFIED && this.mode !== "spectator") this.tokens.set(r.match.yourSeat, this.id.token);
        this.render();
        void this.autoSelect();
      }
    } catch {
      /* the stream reports what is wrong */
    }
  }

  /**
   * toWatch opens the game as a spectator: a link to a game opened by
   * someone who holds no seat in it (a link shared by a player) shows the
   * spectator's view, never a player's controls.
   */
  private toWatch(): void {
    if (this.leftForWatch) return;
    this.leftForWatch = true;
    for (const l of this.loops) l.stop();
    session.game = this.savedGame; // not this browser's game: its own, if any, stays
    location.replace(`#/watch/${this.matchId}`);
  }
  private leftForWatch = false;

  private follow(token: string, lastSeq: bigint, signal: AbortSignal): AsyncIterable<{ message: StreamMessage }> {
    return api(token).match.follow({ matchId: this.matchId, lastSeq }, { signal, headers: matchHeaders(this.matchId) }) as AsyncIterable<{ message: StreamMessage }>;
  }

  private loop(token: string, open: (seq: bigint, signal: AbortSignal) => AsyncIterable<{ message: StreamMessage }>, lastSeq: bigint, primary: boolean): FeedLoop {
    return new FeedLoop({
      open,
      idleMs: this.mode === "spectator" ? undefined : 40_000,
      onProbe: (id) => {
        // Answered at once; a lost answer only loses one sample.
        api(token).match.answerProbe({ matchId: this.matchId, id }).catch(() => {});
      },
      onServerTime: (s, l) => this.server.observe(s, l),
      onUpdate: (feed) => {
        const m = feed.match!;
        // Remember which seat each token holds.
        if (m.yourSeat !== Seat.UNSPECIFIED) this.tokens.set(m.yourSeat, token);
        if (!primary) return;
        if (this.mode !== "spectator") session.saveSeq(this.matchId, feed.lastSeq);
        const last = m.plies.at(-1);
        this.previousPawn = last && feed.previous ? pawnOf(feed.previous.view, last.seat) : undefined;
        // The feed changes its match in place: compare with what was drawn.
        const moved = this.shownPlies !== m.plies.length;
        this.shownPlies = m.plies.length;
        this.match = m;
        if (moved) {
          this.resetSelection();
          this.wallMode = false; // a ply played ends wall mode
          // A ply of this page's player accepted: an earlier refusal is stale.
          if (last && (last.seat === m.yourSeat || this.tokens.has(last.seat))) clearError();
        }
        this.render();
        if (moved || !this.selected) void this.autoSelect();
      },
      onStatus: (s, err) => {
        if (!primary) {
          if (s === "failed") toast(() => t("conn.second", { error: errorText(err) }), "error");
          return;
        }
        if (s === "failed" && this.mode === "seat" && err instanceof ConnectError && err.code === Code.PermissionDenied) {
          this.toWatch(); // no seat in this game: a spectator
          return;
        }
        if (s === "failed" && err instanceof ConnectError && err.code === Code.Aborted && this.mode !== "spectator") {
          // Another tab took the game: nothing is started here until "Play here".
          this.superseded = true;
          this.resetSelection();
          this.wallMode = false;
          this.cursor = undefined;
          this.confirmingResign = false;
          this.leavingTo = undefined;
        }
        this.status = s;
        this.renderBanner(err);
        if (this.superseded && this.match) this.render();
        if (s === "live" && !this.destinations.length) void this.autoSelect();
        if (s === "ended" && this.match) this.render();
      },
    }, lastSeq);
  }

  private bannerErr: unknown;

  private renderBanner(err?: unknown): void {
    this.bannerErr = err;
    const b = this.els.banner;
    if (typeof navigator !== "undefined" && navigator.onLine === false && this.status !== "failed") {
      this.onOffline();
      return;
    }
    b.className = `conn-banner ${this.status}`;
    this.layout.classList.toggle("banner-only", bannerOnly(this.status, !!this.match));
    switch (this.status) {
      case "connecting":
        b.textContent = t("conn.connecting");
        break;
      case "reconnecting":
        b.textContent = t("conn.reconnecting");
        break;
      case "failed":
        // The server answers NOT_FOUND alike for a game that never was, one
        // that ended, and a private one the caller may not see (so that its
        // existence is not revealed): the page names all three.
        b.textContent = err instanceof ConnectError && err.code === Code.NotFound
          ? t("conn.notFound")
          : errorText(err);
        if (err instanceof ConnectError && err.code === Code.Aborted) {
          b.textContent = t("conn.elsewhere");
          b.append(" ", h("button", { class: "small", onclick: () => location.reload() }, t("conn.playHere")));
        }
        if (err instanceof ConnectError && err.code === Code.NotFound && this.mode !== "spectator") {
          // A finished game leaves the live store: its record is in history.
          // Only a game that has a record links to it: a made-up id has none.
          const link = h("a", { href: `#/replay/${this.matchId}`, id: "conn-record", hidden: true }, t("conn.record"));
          b.append(" ", link);
          void api(this.id.token).lobby.getGame({ gameId: this.matchId }).then((r) => { link.hidden = !r.record; }, () => {});
          if (session.game?.matchId === this.matchId) session.game = undefined;
        }
        break;
      default:
        b.textContent = "";
    }
  }

  // ---- seats ----

  private get view(): GameView | undefined {
    return this.match?.view;
  }

  /** isMine reports whether a seat's participant is the signed-in player. */
  private isMine(p: { playerId: string } | undefined): boolean {
    return !!p && p.playerId !== "" && p.playerId === this.id.playerId;
  }

  /** ownSeat is the seat the signed-in player holds in a game watched as a spectator. */
  private ownSeat(): Seat | undefined {
    return this.match?.seats.find((s) => this.isMine(s.participant))?.participant?.seat;
  }

  /** mySeats are the seats this screen plays: one, both (one keyboard), or none. */
  private get mySeats(): Seat[] {
    if (this.mode === "spectator" || !this.match) return [];
    if (this.mode === "local") return [Seat.FIRST, Seat.SECOND].filter((s) => this.match!.seats.some((x) => x.participant?.seat === s));
    return this.match.yourSeat === Seat.UNSPECIFIED ? [] : [this.match.yourSeat];
  }

  /** actingSeat is the seat whose ply the board takes now, if any. */
  private get actingSeat(): Seat | undefined {
    const v = this.view;
    if (!v || this.match?.status === MatchStatus.FINISHED || this.superseded) return undefined;
    return this.mySeats.includes(v.toMove) ? v.toMove : undefined;
  }

  private tokenFor(seat: Seat): string {
    return this.tokens.get(seat) ?? this.id.token;
  }

  /** bottomSeat is the seat drawn at the bottom (the viewer plays from the bottom, Q5). */
  private get bottomSeat(): Seat {
    if (this.mode === "seat" && this.match?.yourSeat === Seat.SECOND) return Seat.SECOND;
    return Seat.FIRST;
  }

  private get flipped(): boolean {
    return this.bottomSeat === Seat.SECOND && this.view?.game !== Game.BANQI;
  }

  // ---- rendering ----

  private render(): void {
    const m = this.match;
    const v = this.view;
    if (!m || !v) return;
    document.title = t("title.game", { game: gameName(v.game) });
    piecesMenu(v.game === Game.BANQI);
    this.renderSpectators();
    if (m.status === MatchStatus.FINISHED) {
      // A finished game takes no plies: no dots, selection, preview or cursor behind the result.
      this.resetSelection();
      this.wallMode = false;
      this.cursor = undefined;
    }
    const acting = this.actingSeat;
    const cursorWall = this.wallMode && this.cursor && acting !== undefined ? this.cursorWall() : undefined;
    // The wall at the keyboard cursor is drawn as placeable or not, as the
    // terminal does: at once from the walls on the board, then as the server says.
    const cursorVerdict = cursorWall ? this.wallVerdict(cursorWall) : undefined;
    if (cursorWall && cursorVerdict && !cursorVerdict.asked) this.checkCursorWall(cursorWall);
    this.cursorVerdict = cursorWall && cursorVerdict ? { name: wallName(cursorWall), ...cursorVerdict } : undefined;
    if (this.wallStart && cursorWall && cursorVerdict && cursorVerdict.state !== "checking") {
      // The first verdict on the wall wall mode started on: a wall that
      // cannot go there (the one just placed, say) gives way to the nearest legal one.
      this.wallStart = false;
      if (cursorVerdict.state === "invalid") this.toNearestLegalWall(cursorWall);
    }
    this.els.board.innerHTML = renderBoard({
      view: v,
      flipped: this.flipped,
      selected: this.selected,
      destinations: this.destinations,
      losing: acting !== undefined ? this.destinations.filter((d) => returnHomeLoses(v, acting, d)) : undefined,
      lastFrom: this.previousPawn,
      preview: this.preview,
      cursor: this.wallMode ? undefined : this.cursor,
      cursorWall,
      cursorWallState: cursorVerdict?.state,
      interactive: acting !== undefined,
    });
    this.els.board.dataset.toMove = String(v.toMove);
    this.els.board.dataset.plyCount = String(v.plyCount);
    this.els.board.dataset.acting = acting !== undefined ? "yes" : "no";
    this.els.board.dataset.status = MatchStatus[m.status];
    this.renderStrip(this.els.top, otherSeat(this.bottomSeat));
    this.renderStrip(this.els.bottom, this.bottomSeat);
    this.renderMoves();
    this.renderInfo();
    this.renderActions();
    this.renderHint();
    this.tickClocks();
    this.focusBoardOnce();
    if (m.status === MatchStatus.FINISHED) {
      sawEnd(m.matchId); // its record may lag a moment behind (the Replay link)
      this.showResult();
    }
  }

  /**
   * focusBoardOnce gives the board the keyboard focus when the game first
   * shows, so arrows and Enter work at once; not while the player is
   * typing in a field, and never again after (a click elsewhere stays).
   */
  private focusBoardOnce(): void {
    if (this.boardFocused) return;
    this.boardFocused = true;
    if (this.mode === "spectator") return;
    const a = document.activeElement;
    const typing = a instanceof HTMLInputElement ? !["radio", "checkbox", "button", "submit", "reset"].includes(a.type)
      : a instanceof HTMLElement && (a.tagName === "TEXTAREA" || a.tagName === "SELECT" || a.isContentEditable);
    if (typing && a?.isConnected) return;
    if (this.els.board.isConnected) this.els.board.focus({ preventScroll: true });
  }

  private participant(seat: Seat): Participant | undefined {
    return this.match?.seats.find((s) => s.participant?.seat === seat)?.participant;
  }

  /**
   * botBadge is a bot's ladder rating in this variant, when measured and
   * above the ladder's floor (Easy is 0 by definition: a "rating 0" says
   * nothing); its name says its level already.
   */
  private botBadge(l: BotLevel): HTMLElement | false {
    const m = this.match!;
    return botRatingBadge(this.variantList?.find((x) => x.game === m.game && x.id === m.variant), l);
  }

  private renderStrip(el: HTMLElement, seat: Seat): void {
    const m = this.match!;
    const v = this.view!;
    const p = this.participant(seat);
    const seatState = m.seats.find((s) => s.participant?.seat === seat);
    clear(el);
    el.dataset.seat = Seat[seat];
    if (!p) {
      el.append(h("span", { class: "strip-name muted" }, "—"));
      return;
    }
    // Whose captures a Banqi seat's are: "you", the player's name, or for a spectator the seat's colour.
    const you = this.mode === "seat" ? m.yourSeat === seat : this.mode === "spectator" && this.isMine(p);
    const { token, extra } = seatParts(v, seat, you ? true : this.mode === "spectator" ? undefined : playerName(p));
    const isTurn = v.toMove === seat && m.status !== MatchStatus.FINISHED;
    el.classList.toggle("turn", isTurn);
    // Watching a game of one's own (from the Watch list) is still one's own seat (you, above).
    const name = h("span", { class: "strip-name" }, token,
      // An account's name opens its profile in a new tab (the game goes on here).
      h("span", { class: "pname" }, this.mode === "local" ? playerName(p) : playerLink(p, "", true)), you ? h("span", { class: "you" }, t("you")) : false,
      p.rating !== undefined && p.botLevel === BotLevel.UNSPECIFIED ? h("span", { class: "rating" }, String(p.rating)) : false,
      p.botLevel !== BotLevel.UNSPECIFIED ? this.botBadge(p.botLevel) : false);
    // A finished game waits for nobody: no countdown to return to it.
    if (seatState?.connection === ConnectionState.DISCONNECTED && m.status !== MatchStatus.FINISHED) {
      const dl = seatState.reconnectDeadline ? timestampMs(seatState.reconnectDeadline) : 0;
      // One's own seat, watched from another screen, is not "disconnected"
      // in red: its player is right here, and can take it back.
      // A window of hours or days (a game without a clock) is no alarm:
      // its player is "away", and may come back any time.
      const long = dl - this.server.now(Date.now()) >= LONG_ABSENCE_MS;
      const label = you ? t("away.mine") : long ? t("away.long") : t("away.disconnected");
      extra.append(h("span", { class: you ? "away mine" : long ? "away long" : "away", "data-deadline": dl, "data-label": label }, label));
    }
    if (isTurn && m.firstPlyDeadline && firstPlyWarning(m, this.server.now(Date.now()))) {
      // Beside the frozen clock: the seconds left for the first ply
      // before the game is called off (tickClocks counts them down).
      extra.append(h("span", { class: "first-ply", role: "timer", "data-deadline": timestampMs(m.firstPlyDeadline) }, ""));
    }
    const clock = m.clocks ? h("span", { class: `clock${m.clocks.running === seat && m.status !== MatchStatus.FINISHED ? " running" : ""}`, "data-clock-seat": Seat[seat], role: "timer", "aria-label": t("clock.of", { name: playerName(p) }) }, "") : false;
    el.append(name, extra, clock || h("span", { class: "clock none" }, isTurn ? t("toMove") : ""));
  }

  private tickClocks(): void {
    // A game without a clock still counts down its first ply and a
    // player's return: only the clocks need one.
    const c = clockSnapshot(this.match);
    const base = Number(this.match?.timeControl?.baseMs ?? 0n);
    for (const el of c ? this.els.board.parentElement!.parentElement!.querySelectorAll<HTMLElement>("[data-clock-seat]") : []) {
      const seat = el.dataset.clockSeat === "FIRST" ? Seat.FIRST : Seat.SECOND;
      const ms = remainingMs(c!, seat, Date.now(), this.server);
      const shown = formatClock(ms);
      if (el.textContent !== shown) el.textContent = shown;
      el.classList.toggle("low", lowTime(ms, base));
    }
    for (const el of this.els.board.parentElement!.parentElement!.querySelectorAll<HTMLElement>(".first-ply[data-deadline]")) {
      const left = Math.max(0, Number(el.dataset.deadline) - this.server.now(Date.now()));
      const s = t("seconds", { count: Math.ceil(left / 1000) });
      if (el.textContent !== s) {
        el.textContent = s;
        el.setAttribute("aria-label", t("firstPly.label", { time: s }));
        el.title = t("firstPly.title", { time: s });
      }
    }
    for (const el of this.els.board.parentElement!.parentElement!.querySelectorAll<HTMLElement>(".away[data-deadline]")) {
      const left = Math.max(0, Number(el.dataset.deadline) - this.server.now(Date.now()));
      const s = t("away.countdown", { label: el.dataset.label ?? t("away.disconnected"), time: returnText(left) });
      if (el.textContent !== s) el.textContent = s;
    }
  }

  private renderMoves(): void {
    const m = this.match!;
    // Screen readers hear each new ply: who played what.
    const last = m.plies.at(-1);
    const said = last ? t("announce.played", { name: playerName(this.participant(last.seat)) ?? "", ply: last.notation }) : "";
    if (this.els.announce.textContent !== said) this.els.announce.textContent = said;
    clear(this.els.moves);
    for (const row of moveRows(m.plies)) {
      const cell = (p?: { ply: number; text: string }) => p
        ? h("span", { class: `ply${p.ply === m.plies.length ? " last" : ""}`, "data-ply": p.ply }, p.text)
        : h("span", { class: "ply empty" });
      this.els.moves.append(h("li", {}, h("span", { class: "num" }, `${row.number}.`), cell(row.first), cell(row.second)));
    }
    this.els.moves.scrollTop = this.els.moves.scrollHeight;
  }

  private renderInfo(): void {
    const m = this.match!;
    const v = this.view!;
    clear(this.els.info);
    const title = h("h1", {}, gameName(v.game), h("span", { class: "variant" }, ` · ${variantName(v.game, v.variant)}`));
    const meta = [timeControlText(m.timeControl), m.rated ? t("rated") : t("casual")];
    if (this.mode === "local") meta.push(t("meta.oneDevice"));
    // A spectator is among the spectators counted: "watching" once, with the others.
    if (this.mode === "spectator") meta.push(m.spectators > 1 ? t("meta.spectatingWith", { count: m.spectators - 1 }) : t("meta.spectating"));
    else if (m.spectators) meta.push(t("watching", { count: m.spectators }));
    this.els.info.append(title, h("p", { class: "muted small" }, meta.join(" · "), " · ",
      h("a", { href: `#/rules/${gameName(v.game).toLowerCase()}`, target: "_blank", rel: "noopener", id: "rules-link", title: t("rules.newTab") }, t("nav.rules"))));
    let status = "";
    if (m.status === MatchStatus.FINISHED) {
      // "You lost. Your opponent reached the goal row."
      const line = this.outcomeLine();
      const title = outcomeTitle(m.outcome, this.mode === "seat" ? m.yourSeat : Seat.UNSPECIFIED, this.names());
      status = line ? `${title}${t("sentence.end")}${line}` : title;
    } else if (this.superseded) {
      status = t("status.superseded");
    } else if (this.actingSeat !== undefined) {
      status = this.mode === "local" ? t("status.toMove", { name: playerName(this.participant(v.toMove)) ?? "" }) : t("status.yourTurn");
    } else if (this.mode === "spectator" && this.ownSeat() !== undefined) {
      status = t("status.ownWatched");
    } else if (this.mode === "spectator") {
      status = t("status.toMove", { name: playerName(this.participant(v.toMove)) ?? "" });
    } else {
      status = t("status.waiting");
    }
    this.els.info.append(h("p", { class: "status-line", id: "status-line" }, status));
    if (v.board.case === "corners") this.els.info.append(h("p", { class: "muted small", id: "move-line" }, cornersMoveLine(v.board.value)));
    if (v.board.case === "banqi" && v.board.value.faceDownCounts.length) {
      // What is still face down, by kind: public knowledge (B6), no square named.
      const counts = v.board.value.faceDownCounts;
      const total = counts.reduce((n, c) => n + c.count, 0);
      const row = h("div", { class: "hidden-counts", "aria-label": t("faceDown.label", { list: counts.map((c) => `${num(c.count)} ${banqiInfo(c.piece)?.name}`).join(", ") }) });
      for (const c of counts) {
        const cell = h("span", { class: "hc" });
        cell.append(svg(capturedSvg([c.piece], 10)), h("span", { class: "n" }, `×${num(c.count)}`));
        row.append(cell);
      }
      this.els.info.append(h("details", { class: "hidden-box", open: true }, h("summary", {}, t("faceDown", { count: total })), row));
    }
    if (v.board.case === "banqi") this.els.info.append(...letterLegend());
  }

  /** outcomeLine is how the game ended, in a sentence from this screen's side. */
  private outcomeLine(): string {
    const m = this.match!;
    const solo = !m.seats.some((s) => s.participant?.seat === Seat.SECOND);
    return outcomeLine(m.outcome, m.game, this.mode === "seat" ? m.yourSeat : Seat.UNSPECIFIED, this.names(), solo, m.plies.length);
  }

  private names(): [string, string] {
    return [playerName(this.participant(Seat.FIRST)) ?? "", playerName(this.participant(Seat.SECOND)) ?? ""];
  }

  private renderActions(): void {
    const m = this.match!;
    const a = this.els.actions;
    clear(a);
    if (this.mode === "spectator") {
      if (this.ownSeat() !== undefined && m.status !== MatchStatus.FINISHED) {
        a.append(h("a", { class: "button primary", id: "take-seat", href: `#/game/${this.matchId}` }, t("takeSeat")));
      }
      a.append(h("a", { class: "button", href: "#/watch" }, t("otherLive")));
      const note = this.declinedNote();
      if (note) a.prepend(note);
      return;
    }
    if (m.status === MatchStatus.FINISHED) {
      // The way back to the result once its dialog is closed: not beside the open dialog.
      if (this.els.overlay.hidden) a.append(h("button", { id: "show-result", onclick: () => this.showResult(true) }, t("result.show")));
      return;
    }
    if (this.superseded) return; // the tab that took the game over resigns or offers draws, not this one
    if (this.leavingTo) {
      // Asked before a link takes the player away from a game against a
      // person: the server gives a seat that left a reconnection window
      // (a minute by default), then rules the game lost by abandonment.
      const to = this.leavingTo;
      a.append(h("div", { class: "offer", role: "alertdialog", "aria-label": t("leave.label") },
        h("span", {}, m.plies.length ? t("leave.question") : t("leave.question.first")),
        h("button", { class: "danger", id: "leave-confirm", onclick: () => { this.leavingTo = undefined; location.hash = to; } }, t("leave.yes")),
        h("button", { id: "leave-cancel", onclick: () => { this.leavingTo = undefined; this.renderActions(); } }, t("leave.no"))));
      return;
    }
    const v = this.view!;
    const actor = this.mode === "local" ? v.toMove : m.yourSeat;
    const variant = this.variantList?.find((x) => x.game === m.game && x.id === m.variant);
    const draws = variant ? variant.draws : v.game !== Game.QUORIDOR; // Variant.draws; the server decides in any case
    const offerBy = m.drawOfferedBy;
    if (offerBy !== Seat.UNSPECIFIED && offerBy !== actor && this.mySeats.includes(otherSeat(offerBy))) {
      const by = playerName(this.participant(offerBy)) ?? t("yourOpponent");
      a.append(h("div", { class: "offer" }, h("span", {}, t("draw.offers", { name: by })),
        h("button", { class: "primary", id: "accept-draw", onclick: () => this.action("acceptDraw", otherSeat(offerBy)) }, t("accept")),
        h("button", { id: "decline-draw", onclick: () => this.action("declineDraw", otherSeat(offerBy)) }, t("decline"))));
    } else if (offerBy !== Seat.UNSPECIFIED) {
      a.append(h("p", { class: "muted small" }, t("draw.offered")));
    } else if (draws && this.mode !== "local" && !this.vsBot()) {
      const note = this.declinedNote();
      if (note) a.append(note);
      // Two players at one device agree a draw by talking, and a bot does
      // not answer offers: no offer button.
      // Not again at once after a refusal: after the next ply.
      if (this.loops[0]?.feed.mayOfferDraw(actor) ?? true) a.append(h("button", { id: "offer-draw", onclick: () => this.action("offerDraw", actor) }, t("draw.offer")));
      else a.append(h("p", { class: "muted small", id: "offer-later" }, t("draw.later")));
    }
    const who = this.mode === "local" ? v.toMove : m.yourSeat;
    const back = this.confirmingReturn;
    if (back && this.actingSeat !== undefined) {
      // C5.2: asked, as the terminal does, before a ply that loses at once.
      const deadline = v.board.case === "corners" ? v.board.value.deadlineMove : 0;
      a.append(h("div", { class: "offer", role: "alertdialog", "aria-label": t("return.label") },
        h("span", {}, this.mode === "local"
          ? t("return.question.named", { square: back.to, name: playerName(this.participant(this.actingSeat)) ?? seatColour(Seat.FIRST), move: deadline })
          : t("return.question", { square: back.to, move: deadline })),
        h("button", { class: "danger", id: "return-confirm", onclick: () => { this.confirmingReturn = undefined; void this.submit(back.notation); } }, t("return.yes")),
        h("button", { id: "return-cancel", onclick: () => { this.confirmingReturn = undefined; this.renderActions(); this.els.board.focus({ preventScroll: true }); } }, t("cancel"))));
      return;
    }
    if (this.confirmingResign) {
      // An in-page question, not the browser's confirm(): it keeps the
      // page's look, the clock ticking in view, and works in every embed.
      a.append(h("div", { class: "offer", role: "alertdialog", "aria-label": t("resign.label") },
        h("span", {}, this.mode === "local" ? t("resign.question.named", { name: playerName(this.participant(who)) ?? "" }) : t("resign.question")),
        h("button", { class: "danger", id: "resign-confirm", onclick: () => { this.confirmingResign = false; void this.action("resign", who); } }, t("resign.yes")),
        h("button", { id: "resign-cancel", onclick: () => { this.confirmingResign = false; this.renderActions(); } }, t("resign.no"))));
      return;
    }
    a.append(h("button", { class: "danger", id: "resign", onclick: () => { this.confirmingResign = true; this.renderActions(); } }, t("resign")));
  }

  /**
   * declinedNote says that the last draw offer was declined, and by whom,
   * until the next ply or a new offer (the terminal's "<name> declined the
   * draw"): the offer's line would otherwise just vanish.
   */
  private declinedNote(): HTMLElement | undefined {
    const by = this.loops[0]?.feed.drawDeclinedBy ?? Seat.UNSPECIFIED;
    if (by === Seat.UNSPECIFIED || this.match?.status === MatchStatus.FINISHED) return undefined;
    const text = this.mode === "seat" && this.match?.yourSeat === by ? t("draw.declined.you")
      : t("draw.declined", { name: playerName(this.participant(by)) ?? t("yourOpponent") });
    return h("p", { class: "muted small", id: "draw-declined", role: "status" }, text);
  }

  private renderHint(): void {
    const v = this.view!;
    const m = this.match!;
    let hint = "";
    let refused = "";
    if (this.actingSeat !== undefined) {
      if (v.game === Game.QUORIDOR) {
        hint = wallHint(this.wallMode, this.touch, hasKeyboard());
        // The wall shown (the pointer's preview, else the keys' cursor) is
        // named: one that can go there with how to place it, one that
        // cannot with why, in the hint's place.
        const shown = this.preview ? { name: wallName(this.preview.wall), ...this.wallVerdict(this.preview.wall), state: this.preview.state, how: this.touch ? "tap" as const : "click" as const }
          : this.cursorVerdict ? { ...this.cursorVerdict, how: "key" as const } : undefined;
        if (shown?.state === "invalid") refused = wallRefusal(shown.name, shown.check, shown.reason, this.actingSeat);
        else if (shown?.state === "valid") hint = legalWallHint(shown.name, shown.how);
      } else if (v.game === Game.CORNERS) {
        hint = t("hint.corners");
        const acting = this.actingSeat;
        if (this.destinations.some((d) => returnHomeLoses(v, acting, d))) hint += ` ${t("hint.corners.orange")}`;
      }
      else hint = banqiHint(this.touch);
      if (firstPlyWarning(m, this.server.now(Date.now()))) hint += ` ${t("hint.firstPly")}`;
    }
    this.els.hint.textContent = refused || hint;
    this.els.hint.classList.toggle("refused", !!refused);
    const tools = this.els.tools;
    clear(tools);
    if (v.game === Game.QUORIDOR && this.mySeats.length && m.status !== MatchStatus.FINISHED) {
      const on = this.actingSeat !== undefined;
      tools.append(
        h("button", {
          class: `toggle${this.wallMode ? " on" : ""}`, id: "wall-mode", "aria-pressed": this.wallMode ? "true" : "false", disabled: !on,
          onclick: () => { this.wallMode = !this.wallMode; this.wallStart = this.wallMode; this.preview = undefined; this.render(); },
          title: t("wall.mode.title"),
        }, svg(`<svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true"><rect x="2" y="8" width="16" height="4" rx="1.5" fill="currentColor"/></svg>`), t("wall")),
        h("button", { id: "rotate", disabled: !on, onclick: () => { this.orientation = this.orientation === "h" ? "v" : "h"; this.refreshPreview(); }, title: t("wall.turn.title"), "aria-label": this.orientation === "h" ? t("wall.turn.h") : t("wall.turn.v") },
          this.orientation === "h" ? t("wall.horizontal") : t("wall.vertical"), " ⟳"));
    }
    tools.append(this.els.hintBox);
  }

  // ---- result ----

  private async showResult(force = false): Promise<void> {
    const m = this.match!;
    if (!force && this.resultShownFor === m.matchId) return;
    this.resultShownFor = m.matchId;
    if (session.game?.matchId === m.matchId) session.game = undefined;
    if (this.mode !== "spectator" && m.plies.length) session.ended = { matchId: m.matchId, at: Date.now() };
    const o = this.els.overlay;
    const you = this.mode === "seat" ? m.yourSeat : Seat.UNSPECIFIED;
    const title = outcomeTitle(m.outcome, you, this.names());
    const rating = h("p", { class: "rating-change" }, m.rated ? t("result.computing") : "");
    clear(o);
    o.hidden = false;
    o.className = `result-overlay ${outcomeClass(m.outcome, you)}`;
    const origin = loadOrigin(m.matchId);
    o.append(h("div", { class: "result-card", role: "dialog", "aria-labelledby": "result-title" },
      h("h2", { id: "result-title" }, title),
      h("p", { class: "muted", id: "result-line" }, this.outcomeLine()),
      rating,
      h("div", { class: "row" },
        this.mode !== "spectator" ? h("button", { class: "primary", id: "rematch", onclick: () => void this.rematch(origin) },
          origin?.opponent === "queue" ? t("result.findAnother") : origin?.opponent === "bot" || m.seats.some((x) => x.participant?.botLevel) ? t("result.again") : t("result.rematch")) : false,
        m.plies.length ? h("a", { class: "button", href: `#/replay/${m.matchId}` }, t("history.replay")) : false,
        m.plies.length ? h("a", { class: "button", id: "result-review", href: `#/replay/${m.matchId}?review=1` }, t("review.button")) : false,
        h("a", { class: "button", href: "#/play" }, t("lobby.newGame")),
        h("button", { class: "link", id: "close-result", onclick: () => { o.hidden = true; this.renderActions(); } }, t("close"))),
      h("p", { class: "rematch-note muted small", "aria-live": "polite" })));
    this.renderActions(); // no "Show result" while the result shows
    if (!this.rematchWatched) {
      this.rematchWatched = true;
      void this.watchRematch(origin);
    }
    if (m.rated) {
      for (let i = 0; i < 90; i++) { // ratings are computed a moment after the game
        try {
          const rec = (await api(this.id.token).lobby.getGame({ gameId: m.matchId })).record;
          const ch = rec?.ratingChanges.find((r) => r.playerId === this.id.playerId);
          if (ch) {
            rating.textContent = ratingText(ch.before, ch.after);
            return;
          }
          const why = rec?.summary?.unratedReason ?? UnratedReason.UNSPECIFIED;
          if (why !== UnratedReason.UNSPECIFIED && why !== UnratedReason.CASUAL) {
            rating.dataset.unrated = UnratedReason[why].toLowerCase();
            rating.textContent = unratedText(why);
            return;
          }
        } catch { /* not recorded yet */ }
        await new Promise((r) => setTimeout(r, Math.min(3000, 500 + i * 100)));
      }
      rating.textContent = "";
    }
  }

  /** rematch starts the same kind of game again: a new bot game, a new pairing, or a room rematch (seats swapped). */
  private async rematch(origin: Origin | undefined): Promise<void> {
    const m = this.match!;
    const me_ = (await me()) ?? this.id;
    const bot = m.seats.find((s) => s.participant?.botLevel)?.participant?.botLevel;
    const o: Origin = origin ?? {
      game: m.game, variant: m.variant, opponent: this.mode === "local" ? "local" : bot ? "bot" : "friend",
      level: bot ?? BotLevel.EASY, seat: Seat.UNSPECIFIED, clock: 0, rated: m.rated,
    };
    if (o.opponent === "bot" || o.opponent === "queue") {
      await start(me_, o);
      return;
    }
    // A room match (a friend's, or both seats at this keyboard): lobby.v1 OfferRematch.
    try {
      const tokens = this.mode === "local" ? [this.tokenFor(Seat.FIRST), this.tokenFor(Seat.SECOND)] : [me_.token];
      let r;
      for (const tk of tokens) r = (await api(tk).lobby.offerRematch({ matchId: m.matchId })).rematch;
      if (r?.status === RematchStatus.STARTED && r.newMatchId) this.openRematch(r.newMatchId, o);
      else this.rematchNote(t("rematch.offered"));
    } catch (err) {
      toast(() => errorText(err), "error");
    }
  }

  private rematchNote(text: string, button?: Node): void {
    const el = this.els.overlay.querySelector<HTMLElement>(".rematch-note");
    if (!el) return;
    clear(el);
    el.append(text);
    if (button) el.append(" ", button);
  }

  private openRematch(matchId: string, o: Origin | undefined): void {
    session.game = { matchId, lastSeq: "0", local: this.mode === "local" };
    if (o) localStorage.setItem(`tabuleiro.origin.${matchId}`, JSON.stringify(o));
    location.hash = `#/${this.mode === "local" ? "local" : "game"}/${matchId}`;
  }

  /** watchRematch follows a room match's rematch: the opponent's offer, a refusal, the new match. */
  private async watchRematch(origin: Origin | undefined): Promise<void> {
    const m = this.match!;
    if (this.mode !== "seat" || m.seats.some((s) => s.participant?.botLevel)) return;
    try {
      for await (const u of api(this.id.token).lobby.watchRematch({ matchId: m.matchId }, { signal: this.rematchCtl.signal })) {
        const r = u.rematch;
        if (!r) continue;
        const mine = r.offeredBy.includes(this.id.playerId);
        switch (r.status) {
          case RematchStatus.OFFERED:
            if (mine) this.rematchNote(t("rematch.offered"));
            else this.rematchNote(t("rematch.wants", { name: playerName(r.opponent) ?? t("yourOpponent") }),
              h("button", { class: "small", id: "decline-rematch", onclick: () => void api(this.id.token).lobby.declineRematch({ matchId: m.matchId }).catch((e) => toast(() => errorText(e), "error")) }, t("rematch.noThanks")));
            break;
          case RematchStatus.DECLINED:
            this.rematchNote(r.declinedBy === this.id.playerId ? t("rematch.none") : t("rematch.declined"));
            this.els.overlay.querySelector<HTMLButtonElement>("#rematch")?.setAttribute("disabled", "");
            return;
          case RematchStatus.STARTED:
            if (r.newMatchId) this.openRematch(r.newMatchId, origin);
            return;
        }
      }
    } catch {
      /* queue and bot games have no rematch; a closed page ends the stream */
    }
  }

  // ---- input ----

  private bindBoard(): void {
    const b = this.els.board;
    b.addEventListener("pointerdown", (e) => {
      const touch = e.pointerType !== "mouse";
      if (touch !== this.touch) {
        this.touch = touch;
        if (this.match) this.renderHint();
      }
    });
    b.addEventListener("pointermove", (e) => this.onPointerMove(e));
    b.addEventListener("pointerleave", (e) => {
      // Only a mouse leaving clears its hover preview (with the Wall button
      // on or off): a finger "leaves" after every tap, and its preview
      // waits for the second tap.
      if (e.pointerType === "mouse" && this.preview) {
        this.preview = undefined;
        this.render();
      }
    });
    b.addEventListener("click", (e) => this.onClick(e));
  }

  /**
   * point converts a pointer position to the SVG's user units; px is how
   * many user units a screen pixel is.
   */
  private point(e: MouseEvent): { x: number; y: number; px: number } | undefined {
    const el = this.els.board.querySelector("svg");
    if (!el) return undefined;
    const ctm = (el as SVGSVGElement).getScreenCTM();
    if (!ctm) return undefined;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    const scale = Math.hypot(ctm.a, ctm.b);
    return { x: p.x, y: p.y, px: scale > 0 ? 1 / scale : 1 };
  }

  /**
   * wallAtPointer is the wall the pointer picks, the hover's and the
   * click's alike: the wall previewed now stays picked within a pixel and
   * a half of where it was (a click reports whole pixels, a move their
   * fractions), so a click places the wall its hover drew.
   */
  private wallAtPointer(l: Layout, p: { x: number; y: number; px: number }, strict: boolean): Wall | undefined {
    return pointerWall(l, p.x, p.y, this.orientation, strict, this.preview?.wall, 1.5 * p.px);
  }

  /**
   * onPointerMove previews the wall under the mouse, with the Wall button
   * on or off alike (on, anywhere on the board picks the nearest groove;
   * off, only a groove does): one click then places the wall drawn.
   */
  private onPointerMove(e: PointerEvent): void {
    const v = this.view;
    if (!v || v.game !== Game.QUORIDOR || this.actingSeat === undefined || e.pointerType !== "mouse") return;
    const p = this.point(e);
    if (!p) return;
    const l = layoutFor(v, this.flipped);
    const w = this.wallAtPointer(l, p, !this.wallMode);
    if (!w) {
      if (this.preview) {
        this.preview = undefined;
        this.render();
      }
      return;
    }
    if (this.preview && wallName(this.preview.wall) === wallName(w)) return;
    this.setPreview(w);
  }

  private onClick(e: MouseEvent): void {
    const v = this.view;
    if (!v || this.busy) return;
    const p = this.point(e);
    if (!p) return;
    const l = layoutFor(v, this.flipped);
    this.els.board.focus({ preventScroll: true });
    if (v.game === Game.QUORIDOR && this.actingSeat !== undefined) {
      const strict = !this.wallMode;
      const w = this.wallAtPointer(l, p, strict);
      if (w && (this.wallMode || !squareAt(l, p.x, p.y))) {
        this.wallClick(w);
        return;
      }
    }
    const sq = squareAt(l, p.x, p.y);
    if (sq) void this.squareClick(squareName(sq.file, sq.rank));
  }

  private wallClick(w: Wall): void {
    const name = wallName(w);
    if (this.preview && wallName(this.preview.wall) === name) {
      this.placeWall(w);
      return;
    }
    this.setPreview(w, this.wallMode);
  }

  /**
   * placeWall plays a wall, or says why it cannot go there: the server's
   * reason when it gave one (a refused submission shows its reason too).
   */
  private placeWall(w: Wall): void {
    const name = wallName(w);
    const c = this.wallVerdict(w);
    if (c.state === "invalid") {
      const acting = this.actingSeat;
      // Worded when shown and again in a language chosen meanwhile (the
      // rules the board tells are worded by wallVerdict: asked again).
      toast(() => {
        const now = this.view ? this.wallVerdict(w) : c;
        const d = now.state === "invalid" ? now : c;
        return wallRefusal(name, d.check, d.reason, acting);
      }, "error");
      return;
    }
    void this.submit(name, () => t("wall.named", { wall: name }));
  }

  /**
   * wallVerdict is what the client knows of a wall now: the server's check
   * when it was asked, else what the walls on the board tell at once (no
   * walls left, overlap, cross: Q3.1–Q3.3), else "checking". Whether a
   * wall shuts a pawn off its goal is the server's to say (askWall).
   */
  private wallVerdict(w: Wall): { state: PreviewState; reason: string; check?: PlyCheck; asked: boolean } {
    const v = this.view!;
    if (v.board.case === "quoridor") {
      // What the walls on the board tell at once, with the rule, in the
      // player's language (the engine's refusals of Q3.1–Q3.3): no need to ask.
      const side = this.actingSeat === Seat.SECOND ? v.board.value.second : v.board.value.first;
      const placed = v.board.value.walls.map((x) => parseWall(`${x.anchor}${x.orientation === 2 ? "v" : "h"}`)).filter((x): x is Wall => !!x);
      if ((side?.wallsLeft ?? 0) === 0) return { state: "invalid", reason: t("wall.rule.none"), asked: true };
      const hit = placed.find((x) => wallsConflict(x, w));
      if (hit) {
        const reason = hit.orientation !== w.orientation ? t("wall.rule.cross", { wall: wallName(hit) })
          : wallName(hit) === wallName(w) ? t("wall.rule.same") : t("wall.rule.overlap", { wall: wallName(hit) });
        return { state: "invalid", reason, asked: true };
      }
    }
    const known = this.checks.get(`${v.plyCount}:${wallName(w)}`);
    if (known) return { state: known.legal ? "valid" : "invalid", reason: known.reason, check: known.check, asked: true };
    return { state: "checking", reason: "", asked: false };
  }

  /**
   * askWall asks the server once whether a wall may go down now, and
   * keeps its answer (with the reason) for this position.
   */
  private askWall(w: Wall): Promise<{ legal: boolean; reason: string; check?: PlyCheck }> {
    const v = this.view!;
    const name = wallName(w);
    const key = `${v.plyCount}:${name}`;
    const pending = this.asking.get(key);
    if (pending) return pending;
    // Not while a ply is on its way: the question would name the ply
    // number that the submission is taking (STALE_PLY once it is taken).
    if (this.busy) return Promise.reject(new Error("a ply is being submitted"));
    const p = api(this.tokenFor(this.actingSeat ?? Seat.FIRST)).match.listLegalPlies({ matchId: this.matchId, ply: name, expectedPlyNumber: v.plyCount + 1 })
      .then((r) => {
        const c = { legal: !!r.check?.legal, reason: r.check?.reason ?? "", check: r.check };
        this.checks.set(key, c);
        return c;
      })
      .finally(() => this.asking.delete(key));
    this.asking.set(key, p);
    return p;
  }

  /** checkCursorWall asks about the wall at the keyboard cursor, and draws the answer if it is still there. */
  private checkCursorWall(w: Wall): void {
    const name = wallName(w);
    const plies = this.view!.plyCount;
    if (this.asking.has(`${plies}:${name}`)) return;
    this.askWall(w).then(() => {
      const now = this.wallMode && this.cursor ? this.cursorWall() : undefined;
      if (now && wallName(now) === name && this.view?.plyCount === plies) this.render();
    }, () => { /* no answer: the wall stays as the board tells, and the server decides on Enter */ });
  }

  /**
   * toNearestLegalWall moves the wall cursor, which wall mode started on a
   * wall that cannot be placed, to the nearest legal wall (nearestWall: the
   * fewest cursor steps and turns), as the terminal does. It stays when
   * there is none (no walls left), or when the person moved or turned it
   * before the server answered.
   */
  private toNearestLegalWall(from: Wall): void {
    const v = this.view!;
    const plies = v.plyCount;
    const at = `${this.cursor}:${this.orientation}`;
    api(this.tokenFor(this.actingSeat ?? Seat.FIRST)).match.listLegalPlies({ matchId: this.matchId, expectedPlyNumber: plies + 1 })
      .then((r) => {
        if (!this.wallMode || `${this.cursor}:${this.orientation}` !== at || this.view?.plyCount !== plies) return;
        const legal = r.plies.filter((p) => p.kind === PlyKind.WALL).map((p) => parseWall(p.notation)).filter((w): w is Wall => !!w);
        const best = nearestWall(from, legal);
        if (!best) return;
        this.cursor = squareName(best.anchor.file, best.anchor.rank);
        this.orientation = best.orientation;
        // Listed as legal for this ply: its verdict needs no second question.
        this.checks.set(`${plies}:${wallName(best)}`, { legal: true, reason: "" });
        this.render();
      }, () => { /* no answer: the cursor stays, and the hint says why its wall cannot go there */ });
  }

  private setPreview(w: Wall, thenPlace = false): void {
    const name = wallName(w);
    const known = this.wallVerdict(w);
    const state = known.state;
    this.preview = { wall: w, state };
    this.render();
    // A wall the client already knows to be refused is still asked about
    // once, for the server's reason (shown if the player insists).
    if (known.asked) {
      if (thenPlace && state === "valid") { /* the second tap places it */ }
      return;
    }
    const seq = ++this.checkSeq;
    this.askWall(w)
      .then((c) => {
        if (seq !== this.checkSeq || !this.preview || wallName(this.preview.wall) !== name) return;
        this.preview = { wall: w, state: c.legal ? "valid" : "invalid" };
        this.render();
      })
      .catch(() => {
        if (state === "invalid") return; // the client's own verdict stands
        if (seq === this.checkSeq && this.preview) {
          this.preview = undefined;
          this.render();
        }
      });
  }

  private refreshPreview(): void {
    if (this.preview) {
      const w = { ...this.preview.wall, orientation: this.orientation };
      this.setPreview(w);
    } else this.render();
  }

  private async squareClick(sq: string): Promise<void> {
    const v = this.view!;
    const acting = this.actingSeat;
    if (acting === undefined) return;
    if (this.preview && !this.wallMode) this.preview = undefined;
    // A destination of the selected piece: play it.
    if (this.selected && this.destinations.includes(sq)) {
      const ply = this.legal.find((p) => p.to === sq && p.from === this.selected) ?? this.legal.find((p) => p.to === sq);
      if (returnHomeLoses(v, acting, sq)) {
        this.confirmingReturn = { notation: ply?.notation ?? `${this.selected}-${sq}`, to: sq };
        this.renderActions();
        document.getElementById("return-cancel")?.focus();
        return;
      }
      await this.submit(ply?.notation ?? sq);
      return;
    }
    if (this.confirmingReturn) {
      this.confirmingReturn = undefined; // another square: the question is dropped
      this.renderActions();
    }
    if (v.board.case === "banqi") {
      if (banqiCell(v, sq)?.state.case === "faceDown") {
        await this.submit(sq); // a reveal is the square (B1)
        return;
      }
    }
    if (v.board.case === "quoridor") {
      await this.pawnSquareClick(sq, acting);
      return;
    }
    if (this.selected === sq) {
      // A second click on the selected piece puts it down (its mark and dots go).
      this.resetSelection();
      this.render();
      return;
    }
    if (v.board.case === "corners") {
      const side = acting === Seat.FIRST ? v.board.value.first : v.board.value.second;
      if (!side?.pieces.includes(sq)) {
        await this.refuseSquare(sq);
        return;
      }
    }
    if (v.board.case === "banqi") {
      // Only a face-up piece of one's own colour is picked up; an empty
      // square or an enemy piece the selected piece cannot reach says why.
      const cell = banqiCell(v, sq);
      const piece = cell?.state.case === "revealed" ? banqiInfo(cell.state.value) : undefined;
      const colour = banqiSeatColour(v, acting);
      if (!piece || !colour || piece.red !== (colour === "red")) {
        await this.refuseSquare(sq);
        return;
      }
    }
    await this.select(sq, true);
  }

  /**
   * pawnSquareClick is a click on a Quoridor square: the pawn is the only
   * piece, so it stays selected (a click on it keeps its mark and dots),
   * a dot moves it, even one clicked before its dots were drawn, and any
   * other square says why not.
   */
  private async pawnSquareClick(sq: string, acting: Seat): Promise<void> {
    const v = this.view!;
    const pawn = pawnOf(v, acting);
    if (!pawn) return;
    if (this.selected !== pawn) await this.select(pawn, false);
    if (this.view !== v || this.actingSeat !== acting) return; // the position moved on meanwhile
    if (sq === pawn) {
      this.render();
      return;
    }
    if (this.destinations.includes(sq)) {
      const ply = this.legal.find((p) => p.to === sq);
      await this.submit(ply?.notation ?? sq);
      return;
    }
    await this.refuseSquare(sq);
  }

  /**
   * refuseSquare says why the selected piece (or pawn) cannot go to sq,
   * in the server's words when it gives them (with the rule's number),
   * and keeps the selection, so that the player picks another square.
   */
  private async refuseSquare(sq: string): Promise<void> {
    const v = this.view!;
    const acting = this.actingSeat;
    const from = this.selected;
    if (acting === undefined) return;
    if (!from) {
      toast(() => v.game === Game.CORNERS ? (acting === Seat.FIRST ? t("pick.corners.white") : t("pick.corners.black")) : t("pick.first"), "error");
      return;
    }
    // A Banqi ply onto a piece is a capture (B1: "c2xc3"); the server then
    // says why that capture is refused, not that a step needs an empty square.
    const onto = banqiCell(v, sq)?.state.case;
    const notation = v.game === Game.QUORIDOR ? sq : `${from}${onto === "revealed" ? "x" : "-"}${sq}`;
    let reason = "";
    let check: PlyCheck | undefined;
    try {
      const r = await api(this.tokenFor(acting)).match.listLegalPlies({ matchId: this.matchId, ply: notation, expectedPlyNumber: v.plyCount + 1 });
      if (this.view?.plyCount !== v.plyCount) return;
      reason = r.check && !r.check.legal ? r.check.reason : "";
      check = r.check;
    } catch {
      /* said without the server's reason */
    }
    const dots = this.destinations.length > 0;
    // Worded when shown, and again in a language chosen while it shows.
    toast(() => {
      const what = v.game === Game.QUORIDOR ? t("ply.pawnTo", { square: sq }) : t("ply.to", { from, square: sq });
      return squareRefusal(what, checkText(check), reason, acting, dots ? t("pick.dot") : "");
    }, "error");
  }

  private async select(sq: string, announce: boolean): Promise<void> {
    const v = this.view!;
    const acting = this.actingSeat;
    if (acting === undefined) return;
    try {
      const r = await api(this.tokenFor(acting)).match.listLegalPlies({ matchId: this.matchId, from: sq, expectedPlyNumber: v.plyCount + 1 });
      if (this.view?.plyCount !== v.plyCount || this.actingSeat !== acting) return; // the position moved on meanwhile
      const moves = r.plies.filter((p) => p.kind !== PlyKind.REVEAL && p.kind !== PlyKind.WALL);
      if (!moves.length) {
        if (announce && v.game !== Game.QUORIDOR) toast(() => t("piece.cannotMove"), "error");
        if (v.game !== Game.QUORIDOR) this.resetSelection();
        this.render();
        return;
      }
      this.selected = sq;
      this.legal = moves;
      this.destinations = r.destinations.length ? r.destinations : moves.map((p) => p.to);
      this.render();
    } catch (err) {
      if (announce) toast(() => errorText(err), "error");
    }
  }

  /** autoSelect shows the pawn's destinations at once on a Quoridor turn. */
  private async autoSelect(): Promise<void> {
    const v = this.view;
    const acting = this.actingSeat;
    if (!v || acting === undefined || v.board.case !== "quoridor") return;
    const pawn = acting === Seat.FIRST ? v.board.value.first?.pawn : v.board.value.second?.pawn;
    if (pawn) await this.select(pawn, false);
  }

  private resetSelection(): void {
    this.confirmingReturn = undefined;
    this.selected = undefined;
    this.legal = [];
    this.destinations = [];
    this.preview = undefined;
  }

  private async submit(notation: string, what?: () => string): Promise<void> {
    const v = this.view!;
    const acting = this.actingSeat;
    if (acting === undefined || this.busy) return;
    this.busy = true;
    this.els.board.classList.add("busy");
    try {
      // The walls asked about (a hover's preview, the keys' cursor) are
      // answered first: asked for this ply's number, a question that
      // reached the server after the ply would be refused as stale.
      await Promise.allSettled([...this.asking.values()]);
      const r = await api(this.tokenFor(acting)).match.submitPly({ matchId: this.matchId, plyNumber: v.plyCount + 1, notation });
      clearError(); // an earlier refusal is stale now that a ply was accepted
      // The stream brings the same event; applying it now makes the board answer at once (seq dedups).
      const ev = r.event;
      if (ev) {
        for (const l of this.loops) {
          if (l.feed.apply({ case: "event", value: ev }) === "applied") {
            const m = l.feed.match!;
            if (l === this.loops[0]) {
              session.saveSeq(this.matchId, l.feed.lastSeq);
              this.match = m;
              this.shownPlies = m.plies.length;
              this.resetSelection();
              this.wallMode = false; // a placed wall ends wall mode
              this.render();
              void this.autoSelect();
            }
          }
        }
      }
    } catch (err) {
      toast(() => what ? refusalText(what(), errorText(err), acting) : yourPawn(errorText(err), acting), "error");
      this.resetSelection();
      this.render();
      void this.autoSelect();
    } finally {
      this.busy = false;
      this.els.board.classList.remove("busy");
    }
  }

  private async action(kind: "resign" | "offerDraw" | "acceptDraw" | "declineDraw", seat: Seat): Promise<void> {
    try {
      await api(this.tokenFor(seat)).match[kind]({ matchId: this.matchId });
    } catch (err) {
      toast(() => errorText(err), "error");
    }
  }

  // ---- spectators ----

  /** spectatorPanel: how many watch and whom this player invited (a seat of a game against a person). */
  private spectatorPanel: SpectatorPanel | undefined;
  private spectatorTimer: ReturnType<typeof setInterval> | undefined;

  private renderSpectators(): void {
    const m = this.match;
    if (!m || this.mode !== "seat" || m.yourSeat === Seat.UNSPECIFIED || m.seats.length < 2) return;
    if (!this.spectatorPanel) {
      this.spectatorPanel = new SpectatorPanel(this.id, this.matchId);
      this.els.panel.append(this.spectatorPanel.el); // after the actions where they are in the panel
      // The streams carry no spectator count after their snapshot: it is
      // read again while the game goes on and the page is in view.
      this.spectatorTimer ??= setInterval(() => void this.refreshSpectators(), SPECTATORS_REFRESH_MS);
    }
    this.spectatorPanel.update(m);
  }

  private async refreshSpectators(): Promise<void> {
    const m = this.match;
    if (!m || m.status === MatchStatus.FINISHED || document.visibilityState !== "visible") return;
    try {
      const r = await api(this.id.token).match.getMatch({ matchId: this.matchId });
      if (r.match && this.match) {
        this.match.spectators = r.match.spectators;
        this.spectatorPanel?.update(this.match);
      }
    } catch { /* the stream reports what is wrong */ }
  }

  // ---- keyboard ----

  /** vsBot reports whether the other seat is played by a bot. */
  private vsBot(): boolean {
    const m = this.match;
    return !!m?.seats.some((s) => s.participant && s.participant.seat !== m.yourSeat && s.participant.botLevel !== BotLevel.UNSPECIFIED);
  }

  private cursorWall(): Wall | undefined {
    const sq = this.cursor && parseSquare(this.cursor);
    if (!sq) return undefined;
    return { anchor: { file: Math.min(sq.file, 7), rank: Math.min(sq.rank, 7) }, orientation: this.orientation };
  }

  /** keyStart is where the keyboard cursor first appears: the selected
   * piece, else the acting seat's pawn (Quoridor) or one of its pieces
   * (Corners), else the corner square a1. */
  private keyStart(v: GameView): string {
    const seat = this.actingSeat ?? this.bottomSeat;
    return this.selected ?? pawnOf(v, seat) ?? cornersPieceOf(v, seat) ?? "a1";
  }

  private readonly onKey = (e: KeyboardEvent): void => {
    const v = this.view;
    if (!v || this.mode === "spectator" || this.superseded) return; // the keys play; a spectator, or a tab taken over, plays nothing
    if (e.target instanceof HTMLElement && ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
    if (e.target instanceof HTMLButtonElement && (e.key === "Enter" || e.key === " ")) return;
    const dims = layoutFor(v, this.flipped).dims;
    const arrows: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (arrows[e.key]) {
      const start = parseSquare(this.cursor ?? this.keyStart(v)) ?? { file: 0, rank: 0 };
      const next = moveCursor(start, dims, this.flipped, ...arrows[e.key]);
      this.cursor = squareName(next.file, next.rank);
      this.wallStart = false; // moved: the cursor stays where it is put, legal or not
      e.preventDefault();
      this.render();
      return;
    }
    switch (e.key.toLowerCase()) {
      case "enter":
      case " ": {
        if (!this.cursor) {
          // On the board, the first Enter shows where the keys act; the next one acts.
          if (document.activeElement !== this.els.board) return;
          e.preventDefault();
          this.cursor = this.keyStart(v);
          this.render();
          return;
        }
        e.preventDefault();
        if (this.wallMode && v.game === Game.QUORIDOR) {
          // The wall at the cursor is already drawn: one Enter places it.
          const w = this.cursorWall();
          if (w) this.placeWall(w);
        } else void this.squareClick(this.cursor);
        return;
      }
      case "w":
        if (v.game !== Game.QUORIDOR) return;
        this.wallMode = !this.wallMode;
        this.wallStart = this.wallMode;
        // The wall is drawn at once, at the cursor (at first the pawn), or at
        // the nearest legal wall if it cannot go there: Enter places it.
        this.cursor ??= this.keyStart(v);
        this.preview = undefined;
        this.render();
        return;
      case "r":
        if (v.game !== Game.QUORIDOR) return;
        this.wallStart = false;
        this.orientation = this.orientation === "h" ? "v" : "h";
        this.refreshPreview();
        return;
      case "escape":
        this.resetSelection();
        this.wallMode = false;
        this.render();
        void this.autoSelect();
        return;
    }
  };
}

/** cornersPieceOf is one of a seat's Corners pieces (the first by name), when it has any. */
function cornersPieceOf(v: GameView, seat: Seat): string | undefined {
  if (v.board.case !== "corners" || seat === Seat.UNSPECIFIED) return undefined;
  const side = seat === Seat.FIRST ? v.board.value.first : v.board.value.second;
  return [...(side?.pieces ?? [])].sort()[0];
}

/** banqiCell is what stands on a Banqi square ("c2"), when the view is Banqi's. */
function banqiCell(v: GameView, sq: string): BanqiCell | undefined {
  if (v.board.case !== "banqi") return undefined;
  return v.board.value.cells[(Number(sq.slice(1)) - 1) * 8 + (sq.charCodeAt(0) - 97)];
}

/** pawnOf is a seat's Quoridor pawn square in a view, when there is one. */
function pawnOf(v: GameView | undefined, seat: Seat): string | undefined {
  if (!v || v.board.case !== "quoridor" || seat === Seat.UNSPECIFIED) return undefined;
  return seat === Seat.FIRST ? v.board.value.first?.pawn : v.board.value.second?.pawn;
}

/**
 * seatParts are what a player's strip shows of a seat in a position (the
 * live game's and the replay's): its colour's dot, and beside the name its
 * colour in words with the walls left (Quoridor), the pieces captured
 * (Banqi, captioned with whose captures they are: who, "you" or a name,
 * else the seat's colour) or the pieces arrived (Corners with a deadline).
 */
/**
 * botRatingBadge is a bot's ladder rating in a variant for its player bar,
 * when measured and above the ladder's floor (Easy is 0 by definition: a
 * "rating 0" says nothing); the bot's name says its level already.
 */
export function botRatingBadge(v: Variant | undefined, l: BotLevel): HTMLElement | false {
  const r = levelRating(v, l);
  if (!r || r.rating === 0) return false;
  return h("span", { class: "badge bot-rating", title: levelTitle(r) }, t("bot.rating", { rating: num(r.rating) }));
}

/**
 * letterLegend is what each Latin letter stands for (K general … P
 * soldier), in the player's language, when pieces are drawn as letters;
 * nothing when they are drawn as characters.
 */
export function letterLegend(): Node[] {
  if (pieceStyle() !== "letters") return [];
  return [h("p", { class: "letter-legend muted small", id: "letter-legend" },
    h("span", { class: "legend-caption" }, t("legend.letters")),
    ...banqiLetters().map((k) => h("span", { class: "legend-item" }, h("b", {}, k.letter), ` ${k.name}`)))];
}

export function seatParts(v: GameView, seat: Seat, who?: string | true): { token: Node; extra: HTMLElement } {
  let colour: string;
  let token: Node;
  if (v.game === Game.BANQI) {
    const c = banqiSeatColour(v, seat);
    colour = c ? (c === "red" ? t("colour.red") : t("colour.black")) : seat === Seat.FIRST ? t("lobby.seat.first") : t("lobby.seat.second");
    token = h("span", { class: `seat-dot banqi ${c ?? "unknown"}`, "aria-hidden": "true" });
  } else {
    colour = seatColour(seat);
    token = h("span", { class: `seat-dot ${seat === Seat.FIRST ? "white" : "black"}`, "aria-hidden": "true" });
  }
  const extra = h("span", { class: "strip-extra" });
  extra.append(h("span", { class: "muted small seat-colour" }, colour));
  if (v.board.case === "quoridor") {
    const side = seat === Seat.FIRST ? v.board.value.first : v.board.value.second;
    const left = side?.wallsLeft ?? 0;
    extra.append(h("span", { class: "walls-left", title: t("walls.left", { count: left }), "data-walls": left },
      ...Array.from({ length: 10 }, (_, i) => h("i", { class: i < left ? "w on" : "w" })), h("span", { class: "sr" }, t("walls.left", { count: left }))));
  } else if (v.board.case === "banqi") {
    // Pieces this seat captured: the opponent's colour among the captured.
    const myColour = banqiSeatColour(v, seat);
    const taken = v.board.value.captured.filter((x) => {
      const info = banqiInfo(x);
      return myColour && info && (info.red ? "red" : "black") !== myColour;
    });
    if (taken.length) {
      const caption = who === true ? t("captured.byYou") : t("captured.by", { name: who ?? colour });
      const box = h("span", { class: "captured", role: "group", "aria-label": t("captured.label", { caption, list: taken.map((x) => banqiInfo(x)!.name).join(", ") }) },
        h("span", { class: "captured-caption", "aria-hidden": "true" }, caption));
      // One small picture a piece, in a row that wraps inside the bar: a
      // long row of captures never runs past it, over the name or "to move".
      box.append(h("span", { class: "captured-pieces" }, ...taken.map((x) => svg(capturedSvg([x], 11)))));
      extra.append(box);
    }
  } else if (v.board.case === "corners") {
    const side = seat === Seat.FIRST ? v.board.value.first : v.board.value.second;
    if (side && (v.board.value.deadlineMove || v.board.value.moveLimit)) {
      extra.append(h("span", { class: "muted small arrived" }, t("corners.arrived", { n: side.piecesInTarget, total: side.home.length })));
    }
  }
  return { token, extra };
}

/** unratedText says why a game asked to be rated changed no rating (the lobby's fairness rules, docs/api.md "Ratings"). */
function unratedText(why: UnratedReason): string {
  switch (why) {
    case UnratedReason.ABORTED:
      return t("result.unrated.aborted");
    case UnratedReason.NEW_PLAYER:
      return t("result.unrated.newPlayer");
    case UnratedReason.REPEAT_OPPONENTS:
    case UnratedReason.REPEAT_ADDRESSES:
      return t("result.unrated.repeat");
    default:
      return t("result.unrated.other");
  }
}
