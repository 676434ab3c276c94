// The application shell: the header, the router (hash routes, so that a
// reload or a shared link opens the same screen) and every screen but the
// game's: sign-in, the lobby (new game, join by code, games to resume),
// a room waiting for its second player, the rated queue, live games,
// history, a game's replay and stats.
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, errorText, ConnectError, Code } from "../api";
import { BanqiPiece, BotLevel, Game, Seat, type Variant } from "../gen/tabuleiro/game/v1/game_pb";
import { GameViewSchema, QuoridorBoardSchema, QuoridorSideSchema, QuoridorWallSchema, WallOrientation } from "../gen/tabuleiro/game/v1/view_pb";
import { RoomStatus, RoomVisibility, type MatchSummary } from "../gen/tabuleiro/lobby/v1/lobby_pb";
import { MatchStatus } from "../gen/tabuleiro/match/v1/match_pb";
import { banqiInfo, plyShape, gameName, games, ratingRow, levelId, levelLabel, playerName, outcomeClass, variantName, levelName, levelRating, levelTitle, levels, moveRows, outcomeLine, outcomeTitle, timeControlText } from "../notation";
import { awaitingEnded, type Identity } from "../session";
import { renderBoard, type BoardState } from "../board";
import { formatClock } from "../clock";
import { inviteCode, inviteLine, joinRoute } from "../invite";
import { nameProblem, nameRefusal } from "../names";
import { replayViews } from "../replay";
import { squareName, type Square } from "../geometry";
import { loadRecord, NO_RECORD } from "../record";
import { clear, fill, h, hideToast, passwordInput, relocalizeToast, scrollWithin, svg, toast } from "./dom";
import { current as currentLanguage, dateTime, num, onLanguage, t, timeOfDay } from "../i18n";
import { onPieceStyle, pieceFace } from "../pieces";
import { botRatingBadge, GameScreen, letterLegend, seatParts } from "./game";
import { rulesScreen } from "./rules";
import { ReviewPanel } from "./review";
import { accountScreen, loginScreen } from "./account";
import { deviceScreen } from "./device";
import { errorInfo } from "../messages";
import { spectateScreen, watcher } from "./spectate";
import { playerLink, playerLinks, profileScreen } from "./profile";
import { frame, go, me, onRoute, piecesMenu, ratingText, session, signIn, variants } from "./shell";
import { busyNotice, CHOICE_KEY, clockChoices, isBusy, loadChoice, saveOrigin, start, tcOf, variantClockIndex, type Opponent } from "./start";

let current: { dispose?: () => void; relocalize?: () => void } | undefined;

/**
 * relocalize redraws the page in a new language or piece style: a game
 * redraws in place (its streams and selection stay); any other screen
 * is opened again from its route.
 */
function relocalize(): void {
  if (current?.relocalize) current.relocalize();
  else void route_();
}
onLanguage(relocalize);
// The message on screen (a refusal, a status) in the new language too, or gone.
onLanguage(relocalizeToast);
onPieceStyle(relocalize);
onRoute(() => void route_());

let routeSeq = 0;

export async function route_(): Promise<void> {
  current?.dispose?.();
  current = undefined;
  const seq = ++routeSeq;
  hideToast();
  const hash = location.hash || "#/";
  const [path, query] = hash.slice(1).split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query ?? "");
  const id = await me();
  if (parts[0] === "login") {
    loginScreen({ session, frame, go }, params.get("next") ?? "#/play");
    return;
  }
  if (parts[0] === "rules") {
    // The rules need no sign-in: a refusal's rule number opens them in a new tab.
    rulesScreen(id, parts[1] ?? "", parts[2] ?? "");
    return;
  }
  if (parts[0] === "u") {
    // A public profile needs no sign-in: a shared link opens it as it is.
    await profileScreen(id, decodeURIComponent(parts[1] ?? ""));
    return;
  }
  if (parts[0] === "spectate") {
    // An invite to watch a private game brings its own guest identity.
    spectateScreen(id, decodeURIComponent(parts[1] ?? ""), params);
    return;
  }
  if (!id) {
    signInScreen(hash);
    return;
  }
  try {
    switch (parts[0] ?? "") {
      case "":
      case "play": {
        const lobby = await lobbyScreen(id);
        // Another route may have begun meanwhile: the lobby's refresh stops then.
        if (seq === routeSeq) current = lobby;
        else lobby.dispose();
        return;
      }
      case "game":
        current = new GameScreen(id, parts[1], "seat");
        return;
      case "account":
        accountScreen({ session, frame, go }, id);
        return;
      case "device":
        deviceScreen(frame, id, params.get("code") ?? "");
        return;
      case "local":
        current = new GameScreen(id, parts[1], "local");
        return;
      case "watch":
        // A private game is watched by the guest its invite link brought, if any.
        if (parts[1]) current = new GameScreen(watcher(parts[1]) ?? id, parts[1], "spectator");
        else current = watchScreen(id);
        return;
      case "join":
        return await joinScreen(id, decodeURIComponent(parts[1] ?? ""), params.get("pw") ?? "");
      case "room":
        current = roomScreen(id, parts[1], params.get("pw") ?? "");
        return;
      case "queue":
        current = queueScreen(id, params);
        return;
      case "history": {
        const history = await historyScreen(id);
        if (seq === routeSeq) current = history;
        else history.dispose();
        return;
      }
      case "replay":
        current = await replayScreen(id, parts[1], params.get("ply"), params.get("review") === "1");
        return;
      case "stats":
        return await statsScreen(id);
      default:
        // A link to no page of ours says so, with the way to the lobby.
        frame(id, h("section", { class: "panel narrow", id: "not-found" }, h("h1", {}, t("notFound.title")), h("p", { class: "lead" }, t("notFound.text")),
          h("a", { class: "button primary", href: "#/play" }, t("back.lobby"))));
        document.title = t("notFound.title");
        return;
    }
  } catch (err) {
    // An account signed out of this browser from another (SignOut
    // everywhere): this browser forgets it and offers to sign in again.
    if (err instanceof ConnectError && errorInfo(err)?.reason === "SIGNED_OUT") {
      session.signOut();
      signInScreen(hash);
      return;
    }
    frame(id, h("section", { class: "panel narrow" }, h("h1", {}, t("error.title")), h("p", { class: "error" }, errorText(err)),
      h("a", { class: "button", href: "#/" }, t("back.lobby"))));
  }
}

// ---- sign-in ----

function signInScreen(target: string): void {
  // An invite link (#/join/CODE) names the game it opens: say so, and go on to it.
  const invite = inviteCode(target);
  // So does a game's link (#/game/ID): a new guest watches it.
  const watching = !invite && /^#\/(game|watch)\/[^/?]+/.test(target);
  // And the Watch page's link (#/watch): the guest watches the live games.
  const watchList = !invite && !watching && /^#\/watch\/?(\?|$)/.test(target);
  // The page checks the name by the lobby's rule (names.ts) and says what
  // is wrong under the field; the browser's own bubble is off (novalidate),
  // so that the two never cover each other.
  const err = h("p", { class: "error field-error", id: "name-error", role: "alert" });
  // Who invites to what, when the invite opens a room (lobby.v1 GetInvite, public).
  const details = h("p", { class: "lead invite-details", id: "invite-details", hidden: true });
  if (invite) void showInvite(details, invite, new URLSearchParams(target.split("?")[1] ?? "").get("pw") ?? "");
  const input = h("input", { id: "name", name: "name", autocomplete: "nickname", required: true, minlength: 2, maxlength: 24, placeholder: t("signin.name"), "aria-label": t("signin.name"), "aria-describedby": "name-error" }) as HTMLInputElement;
  let tried = false;
  const check = (): boolean => {
    const problem = nameProblem(input.value.trim());
    err.textContent = problem ?? "";
    input.setAttribute("aria-invalid", problem ? "true" : "false");
    return !problem;
  };
  input.addEventListener("input", () => {
    if (tried) check();
  });
  const form = h("form", { class: "signin", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    tried = true;
    if (!check()) {
      input.focus();
      return;
    }
    try {
      session.me = await signIn(input.value.trim());
      if (invite) acceptedInvite = invite; // "Join the game" said yes already
      go(target === "#/" ? "#/play" : target);
    } catch (e2) {
      const text = errorText(e2);
      err.textContent = e2 instanceof ConnectError && e2.code === Code.InvalidArgument ? nameRefusal(text) : text;
    }
  } },
  h("label", { for: "name" }, invite ? t("signin.label.join") : watching ? t("signin.label.watch")
    : watchList ? t("signin.label.watchList") : t("signin.label.play")),
  h("div", { class: "row" }, input, h("button", { type: "submit", class: "primary", id: invite ? "join-invite" : watching ? "watch-game" : watchList ? "watch-games" : undefined },
    invite ? t("signin.join") : watching ? t("signin.watch") : watchList ? t("signin.watchList") : t("signin.play"))),
  err);
  frame(undefined, h("section", { class: "hero" },
    h("div", { class: "hero-text" },
      invite
        ? h("h1", { id: "invite-title" }, t("invite.title"))
        : watching ? h("h1", { id: "watch-title" }, t("signin.watchTitle"))
        : h("h1", {}, t("signin.title")),
      invite ? details : false,
      invite
        ? h("p", { class: "lead" }, ...fill(t("signin.invited", { code: "\u0000" }), h("strong", { id: "invite-code" }, invite)))
        : watching ? h("p", { class: "lead" }, t("signin.watchLead"))
        : h("p", { class: "lead" }, t("signin.lead")),
      form),
    h("div", { class: "hero-art", "aria-hidden": "true", "data-game": "Quoridor" }, svg(heroArt()))));
  form.after(h("p", { class: "muted account-link" }, h("a", { id: "login-link", href: `#/login?next=${encodeURIComponent(target === "#/" ? "#/play" : target)}` }, t("account.haveOne"))));
  // A phone's keyboard would cover half the page at once: the name field
  // takes the focus only with a mouse (or a keyboard) on a wider screen.
  if (!touchFirst()) setTimeout(() => input.focus(), 0);
}

/** touchFirst reports a touch screen or a phone-sized viewport. */
export function touchFirst(): boolean {
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse), (max-width: 860px)").matches;
}

/** gameArt is the starting position of a game's first variant, as the welcome picture of an invite to it. */
function gameArt(g: Game): string {
  if (g === Game.CORNERS) return renderBoard({ view: replayViews(Game.CORNERS, "classic-3x3", [], "")[0], flipped: false });
  if (g === Game.BANQI) return renderBoard({ view: replayViews(Game.BANQI, "standard", [], "")[0], flipped: false });
  return heroArt();
}

function heroArt(): string {
  // A small Quoridor position as the welcome picture.
  return renderBoard({ view: demoView(), flipped: false });
}

function demoView() {
  return create(GameViewSchema, {
    game: Game.QUORIDOR, variant: "standard", toMove: Seat.FIRST,
    board: { case: "quoridor", value: create(QuoridorBoardSchema, {
      first: create(QuoridorSideSchema, { pawn: "e4", wallsLeft: 8, goalRank: 9 }),
      second: create(QuoridorSideSchema, { pawn: "d6", wallsLeft: 8, goalRank: 1 }),
      walls: [
        create(QuoridorWallSchema, { anchor: "d6", orientation: WallOrientation.HORIZONTAL, placedBy: Seat.FIRST, plyNumber: 3 }),
        create(QuoridorWallSchema, { anchor: "e3", orientation: WallOrientation.VERTICAL, placedBy: Seat.SECOND, plyNumber: 4 }),
        create(QuoridorWallSchema, { anchor: "b4", orientation: WallOrientation.HORIZONTAL, placedBy: Seat.SECOND, plyNumber: 6 }),
        create(QuoridorWallSchema, { anchor: "f6", orientation: WallOrientation.HORIZONTAL, placedBy: Seat.FIRST, plyNumber: 7 }),
      ],
    }) },
  });
}

// ---- lobby ----

/** LOBBY_REFRESH_MS is how often the lobby reads its list of games in progress again while it is open. */
const LOBBY_REFRESH_MS = 10_000;

async function lobbyScreen(id: Identity): Promise<{ dispose: () => void }> {
  const vs = await variants();
  const c = loadChoice();
  const save = () => localStorage.setItem(CHOICE_KEY, JSON.stringify(c));
  const panel = h("section", { class: "panel play-panel", "aria-labelledby": "new-game" });
  const side = h("aside", { class: "side-col" });
  // A game waiting on this player's ply: a banner above everything, with the time left.
  const turn = h("div", { class: "turn-slot" });
  frame(id, turn, h("div", { class: "lobby" }, panel, side));
  piecesMenu(true); // the Banqi card draws a piece

  // A private room's password as typed: kept while the lobby is open, never stored.
  let roomPassword = "";
  const draw = () => {
    clear(panel);
    const gameVariants = vs.filter((v) => v.game === c.game);
    if (!gameVariants.some((v) => v.id === c.variant)) c.variant = gameVariants[0]?.id ?? "";
    const variant = gameVariants.find((v) => v.id === c.variant);
    const onePlayer = variant?.players === 1;
    if (onePlayer) c.opponent = "bot";
    if (c.opponent === "queue" && !c.clock) c.clock = variantClockIndex(variant);
    const radio = <T,>(name: string, value: T, current: T, label: string | Node, onpick: () => void, extra: Record<string, string> = {}) =>
      h("label", { class: `chip${value === current ? " on" : ""}`, "data-choice": `${name}:${String(value)}`, ...extra },
        h("input", { type: "radio", name, checked: value === current, onchange: () => { onpick(); save(); draw(); } }), label);
    panel.append(h("div", { class: "play-form" },
      h("h1", { id: "new-game" }, t("lobby.newGame")),
      h("div", { class: "game-cards", role: "radiogroup", "aria-label": t("lobby.game") },
        ...games.map((g) => h("label", { class: `game-card${g === c.game ? " on" : ""}`, "data-game": gameName(g) },
          h("input", { type: "radio", name: "game", checked: g === c.game, onchange: () => { c.game = g; save(); draw(); } }),
          svg(gameIcon(g)), h("span", {}, gameName(g))))),
      h("div", { class: "field" }, h("label", { for: "variant" }, t("lobby.variant")),
        h("select", { id: "variant", onchange: (e: Event) => { c.variant = (e.target as HTMLSelectElement).value; save(); draw(); } },
          ...gameVariants.map((v) => h("option", { value: v.id, selected: v.id === c.variant }, variantName(v.game, v.id, v.name) + (c.opponent === "queue" && v.rated ? ` · ${t("lobby.canBeRated")}` : ""))))),
      // Only quick pairing plays rated games; say so where it matters.
      c.opponent !== "queue" && !onePlayer && h("p", { class: "muted small", id: "casual-note" }, t("lobby.casual")),
      h("fieldset", { class: "field" }, h("legend", {}, t("lobby.opponent")),
        h("div", { class: "chips" },
          radio("opp", "bot" as Opponent, c.opponent, onePlayer ? t("lobby.opp.alone") : t("lobby.opp.bot"), () => (c.opponent = "bot")),
          !onePlayer && radio("opp", "local" as Opponent, c.opponent, t("lobby.opp.local"), () => (c.opponent = "local")),
          !onePlayer && radio("opp", "friend" as Opponent, c.opponent, t("lobby.opp.friend"), () => (c.opponent = "friend")),
          !onePlayer && radio("opp", "queue" as Opponent, c.opponent, t("lobby.opp.queue"), () => (c.opponent = "queue")))),
      c.opponent === "bot" && !onePlayer && h("fieldset", { class: "field" }, h("legend", {}, t("lobby.level")),
        h("div", { class: "chips" }, ...levels.map((l) => {
          // Each level with its ladder rating in this variant, when measured.
          const r = levelRating(variant, l);
          return radio("level", l, c.level, levelLabel(l, r), () => (c.level = l),
            { "data-level": levelId(l), ...(r ? { title: levelTitle(r), "data-rating": String(r.rating) } : {}) });
        })),
        // What the numbers are, on the page: a phone has no hover.
        levels.some((l) => levelRating(variant, l)) ? h("p", { class: "muted small", id: "level-note" }, t("level.note")) : ""),
      c.opponent === "friend" && !onePlayer && h("fieldset", { class: "field", id: "room-kind" }, h("legend", {}, t("lobby.room")),
        h("div", { class: "chips" },
          radio("room", "public", c.room ?? "private", t("lobby.room.public"), () => (c.room = "public")),
          radio("room", "private", c.room ?? "private", t("lobby.room.private"), () => (c.room = "private"))),
        h("p", { class: "muted small", id: "room-note" }, c.room === "public" ? t("lobby.room.publicNote") : t("lobby.room.privateNote")),
        c.room !== "public" && passwordInput({ id: "room-password", minlength: 4, maxlength: 64, value: roomPassword,
          placeholder: t("lobby.room.passwordPlaceholder"), "aria-label": t("room.password"),
          oninput: (e: Event) => { roomPassword = (e.target as HTMLInputElement).value; } }).el),
      (c.opponent === "bot" || c.opponent === "friend") && !onePlayer && h("fieldset", { class: "field" }, h("legend", {}, t("lobby.seat")),
        h("div", { class: "chips" },
          radio("seat", Seat.UNSPECIFIED, c.seat, t("lobby.seat.random"), () => (c.seat = Seat.UNSPECIFIED)),
          radio("seat", Seat.FIRST, c.seat, c.game === Game.BANQI ? t("lobby.seat.first") : t("lobby.seat.white"), () => (c.seat = Seat.FIRST)),
          radio("seat", Seat.SECOND, c.seat, c.game === Game.BANQI ? t("lobby.seat.second") : t("lobby.seat.black"), () => (c.seat = Seat.SECOND)))),
      !onePlayer && h("fieldset", { class: "field" }, h("legend", {}, t("lobby.clock")),
        h("div", { class: "chips" }, ...clockChoices.map((k, i) => (c.opponent === "queue" && i === 0) ? false :
          radio("clock", i, c.clock, k.base ? k.label : t("clock.none"), () => (c.clock = i)))),
        // Quick pairing has no "No clock": say why the choice changed.
        c.opponent === "queue" && h("p", { class: "muted small", id: "queue-clock-note" }, t("lobby.queueTimed"))),
      c.opponent === "queue" && variant?.rated && h("label", { class: "check" },
        h("input", { type: "checkbox", checked: c.rated, onchange: (e: Event) => { c.rated = (e.target as HTMLInputElement).checked; save(); draw(); } }),
        t("lobby.rated")),
      // Unticked, a quick pairing game is casual: say so beside the box.
      c.opponent === "queue" && variant?.rated && !c.rated && h("p", { class: "muted small", id: "casual-note" }, t("lobby.casualTick")),
      h("div", { class: "actions" }, h("button", { class: "primary big", id: "start", onclick: () => start(id, { ...c, password: roomPassword }) },
        c.opponent === "friend" ? (c.room === "public" ? t("lobby.start.public") : t("lobby.start.friend")) : c.opponent === "queue" ? t("lobby.start.queue") : t("lobby.start"))),
    ));
  };
  draw();

  // Side column: resume, join by code.
  const code = h("input", { id: "code", placeholder: t("join.code"), autocomplete: "off", "aria-label": t("join.code"), maxlength: 300 });
  const pwField = passwordInput({ id: "code-pw", placeholder: t("join.password"), "aria-label": t("room.password") });
  const pw = pwField.input;
  side.append(h("section", { class: "panel" }, h("h2", {}, t("join.title")),
    h("form", { class: "stack", onsubmit: (e: Event) => {
      e.preventDefault();
      // A whole invite link pasted in the code box opens that link.
      const r = joinRoute(code.value, pw.value);
      if (!r) return;
      acceptedInvite = inviteCode(r); // the Join button said yes already
      go(r);
    } },
      code, pwField.el, h("button", { type: "submit" }, t("join.button")))));
  const resume = h("section", { class: "panel", id: "resume-list" }, h("h2", {}, t("resume.title")), h("p", { class: "muted" }, t("loading")));
  side.append(resume);
  const openRooms = h("section", { class: "panel", id: "open-rooms", "aria-live": "polite" }, h("h2", {}, t("rooms.title")), h("p", { class: "muted" }, t("loading")));
  side.prepend(openRooms); // first: what others offer now
  const rooms = roomList(id, openRooms);
  // The list is read again while the lobby is open, and whenever the page
  // comes back into view: a game that ended meanwhile (in another tab, by
  // abandonment or on time) leaves it, one started elsewhere joins it.
  let stopped = false;
  const load = async () => {
    try {
      const active = (await api(id.token).lobby.listActiveMatches({})).matches;
      if (stopped) return;
      clear(resume);
      resume.append(h("h2", {}, t("resume.title")));
      if (!active.length) resume.append(h("p", { class: "muted" }, t("resume.none")));
      const g = session.game;
      void turnBanner(id, turn, active, () => stopped);
      for (const m of active) {
        const local = g?.matchId === m.matchId && g.local;
        resume.append(summaryRow(m, h("a", { class: "button small", href: `#/${local ? "local" : "game"}/${m.matchId}` }, t("resume.button"))));
      }
    } catch (err) {
      if (stopped) return;
      clear(resume);
      resume.append(h("h2", {}, t("resume.title")), h("p", { class: "error" }, errorText(err)));
    }
  };
  const onShow = () => {
    if (document.visibilityState === "visible") void load();
  };
  const timer = setInterval(onShow, LOBBY_REFRESH_MS);
  document.addEventListener("visibilitychange", onShow);
  window.addEventListener("focus", onShow);
  await load();
  return {
    dispose: () => {
      stopped = true;
      rooms.dispose();
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onShow);
      window.removeEventListener("focus", onShow);
    },
  };
}

function gameIcon(g: Game): string {
  switch (g) {
    case Game.QUORIDOR:
      return `<svg viewBox="0 0 48 48" class="icon" aria-hidden="true"><rect x="2" y="2" width="44" height="44" rx="6" fill="#7a4d2a"/>${[0, 1, 2].map((r) => [0, 1, 2].map((f) => `<rect x="${6 + f * 13}" y="${6 + r * 13}" width="10" height="10" rx="2" fill="#d8b483"/>`).join("")).join("")}<rect x="5" y="16.5" width="23" height="3" rx="1" fill="#f5ead3"/><rect x="30.5" y="18" width="3" height="23" rx="1" fill="#2c211a"/><circle cx="24" cy="37" r="4" fill="#f7f2e8"/><circle cx="24" cy="11" r="4" fill="#2b2522"/></svg>`;
    case Game.CORNERS:
      return `<svg viewBox="0 0 48 48" class="icon" aria-hidden="true"><rect x="2" y="2" width="44" height="44" rx="6" fill="#7a4d2a"/>${[0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((f) => `<rect x="${5 + f * 9.5}" y="${5 + r * 9.5}" width="9.5" height="9.5" fill="${(f + r) % 2 ? "#ecd6b0" : "#b98b5e"}"/>`).join("")).join("")}<circle cx="9.75" cy="38.25" r="3.6" fill="#f7f2e8"/><circle cx="19.25" cy="38.25" r="3.6" fill="#f7f2e8"/><circle cx="9.75" cy="28.75" r="3.6" fill="#f7f2e8"/><circle cx="38.25" cy="9.75" r="3.6" fill="#2b2522"/><circle cx="28.75" cy="9.75" r="3.6" fill="#2b2522"/><circle cx="38.25" cy="19.25" r="3.6" fill="#2b2522"/></svg>`;
    default:
      return `<svg viewBox="0 0 48 48" class="icon" aria-hidden="true"><rect x="2" y="2" width="44" height="44" rx="6" fill="#7a4d2a"/><rect x="5" y="12" width="38" height="24" fill="#ead2a4"/><circle cx="15" cy="24" r="8" fill="#f1e2c2" stroke="#b3261e" stroke-width="1.5"/>${pieceFace(banqiInfo(BanqiPiece.RED_GENERAL)!, 15, 24, 8, "#b3261e")}<circle cx="33" cy="24" r="8" fill="#8b5a2b" stroke="#3d250f"/></svg>`;
  }
}

export function summaryRow(m: MatchSummary, action?: Node): HTMLElement {
  // An account's name links to its profile.
  const names = playerLinks(m.participants, true);
  return h("div", { class: "summary", "data-match": m.matchId },
    h("div", { class: "summary-main" },
      h("div", { class: "summary-title" }, `${gameName(m.game)} · ${variantName(m.game, m.variant)}`, m.rated ? h("span", { class: "badge" }, t("rated")) : false),
      h("div", { class: "summary-players" }, ...(names.length ? names : ["—"])),
      h("div", { class: "muted small" }, `${t("plies", { count: m.plyCount })} · ${timeControlText(m.timeControl)}${m.spectators ? ` · ${t("watching", { count: m.spectators })}` : ""}`)),
    action ?? false);
}

// ---- your turn ----

let turnTick: ReturnType<typeof setInterval> | undefined;

/**
 * turnBanner shows, in slot, the game in progress where this player is to
 * move: whom against, the time left on their clock (counting down) and the
 * way back to it; nothing when no game waits on them.
 */
async function turnBanner(id: Identity, slot: HTMLElement, active: MatchSummary[], stopped: () => boolean): Promise<void> {
  // Whose turn it is comes from the match itself (the lobby's summary of a live match does not say).
  let m: MatchSummary | undefined;
  let clocks;
  for (const a of active) {
    try {
      const r = (await api(id.token).match.getMatch({ matchId: a.matchId })).match;
      if (r && r.status !== MatchStatus.FINISHED && r.yourSeat !== Seat.UNSPECIFIED && r.view?.toMove === r.yourSeat) {
        m = { ...a, yourSeat: r.yourSeat } as MatchSummary;
        clocks = r.clocks;
        break;
      }
    } catch { /* the list's Resume is the way then */ }
  }
  if (stopped()) return;
  if (turnTick) clearInterval(turnTick);
  turnTick = undefined;
  if (!m) {
    clear(slot);
    return;
  }
  const g = session.game;
  const href = `#/${g?.matchId === m.matchId && g.local ? "local" : "game"}/${m.matchId}`;
  const opponent = m.participants.find((p) => p.seat !== m.yourSeat);
  const left = h("strong", { class: "turn-clock", id: "turn-clock" });
  const mine = m.yourSeat === Seat.FIRST ? clocks?.firstRemainingMs : clocks?.secondRemainingMs;
  const deadline = mine !== undefined ? Date.now() + Number(mine) - (clocks?.running === m.yourSeat && clocks.asOf ? Math.max(0, Date.now() - timestampMs(clocks.asOf)) : 0) : undefined;
  const tick = () => { if (deadline !== undefined) left.textContent = t("turn.left", { time: formatClock(deadline - Date.now()) }); };
  tick();
  clear(slot);
  slot.append(h("div", { class: "turn-banner", id: "turn-banner", role: "alert" },
    h("div", {}, h("strong", {}, t("turn.title")), " ",
      h("span", {}, t("turn.game", { game: `${gameName(m.game)} · ${variantName(m.game, m.variant)}`, opponent: opponent ? playerName(opponent) ?? "" : "" }))),
    deadline !== undefined ? left : "",
    h("a", { class: "button primary", id: "turn-back", href }, t("turn.back"))));
  if (deadline !== undefined) turnTick = setInterval(() => (slot.isConnected ? tick() : clearInterval(turnTick)), 1000);
}

// ---- rooms ----

/** ROOMS_REFRESH_MS is how often the lobby reads the open public rooms again while it is in view. */
const ROOMS_REFRESH_MS = 3000;

/**
 * roomList fills el with the open public rooms (ListRooms), per game, each
 * with its host, variant and clock and a Join button that takes its seat
 * at once; the list is read again every few seconds while the page is in
 * view, and when it comes back into view.
 */
function roomList(id: Identity, el: HTMLElement): { dispose: () => void } {
  let stopped = false;
  let shown = "";
  const load = async () => {
    let list;
    try {
      list = (await api(id.token).lobby.listRooms({ pageSize: 100 })).rooms;
    } catch (err) {
      if (!stopped) { clear(el); el.append(h("h2", {}, t("rooms.title")), h("p", { class: "error" }, errorText(err))); }
      return;
    }
    if (stopped) return;
    // Redrawn only when the list changed: a button being clicked stays.
    const key = list.map((r) => `${r.roomId}:${r.members.length}`).join(",") + currentLanguage();
    if (key === shown) return;
    shown = key;
    clear(el);
    el.append(h("h2", {}, t("rooms.title")));
    if (!list.length) {
      el.append(h("p", { class: "muted", id: "rooms-none" }, t("rooms.none")));
      return;
    }
    for (const g of games) {
      const of = list.filter((r) => r.game === g);
      if (!of.length) continue;
      el.append(h("h3", { class: "rooms-game" }, gameName(g)));
      for (const r of of) {
        const host = r.members.find((m) => m.host) ?? r.members[0];
        const mine = host?.playerId === id.playerId;
        const hostText = host ? playerName(host) + (host.rating !== undefined ? ` (${host.rating})` : "") : "—";
        el.append(h("div", { class: "summary open-room", "data-room": r.roomId },
          h("div", { class: "summary-main" },
            h("div", { class: "summary-title" }, hostText, r.rated ? h("span", { class: "badge" }, t("rated")) : false),
            h("div", { class: "muted small" }, `${variantName(r.game, r.variant)} · ${timeControlText(r.timeControl)}`)),
          mine
            ? h("a", { class: "button small", href: `#/room/${r.roomId}` }, t("rooms.yours"))
            : h("button", { class: "small primary join-room", onclick: (e: Event) => joinListed(id, r.roomId, e.target as HTMLButtonElement) }, t("join.button"))));
      }
    }
  };
  const onShow = () => {
    if (document.visibilityState === "visible") void load();
  };
  const timer = setInterval(onShow, ROOMS_REFRESH_MS);
  document.addEventListener("visibilitychange", onShow);
  void load();
  return {
    dispose: () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onShow);
    },
  };
}

/** joinListed takes the free seat of a public room of the lobby's list, and opens its game. */
async function joinListed(id: Identity, roomId: string, btn: HTMLButtonElement): Promise<void> {
  btn.disabled = true;
  try {
    const j = await api(id.token).lobby.joinRoom({ target: { case: "roomId", value: roomId } });
    const r = j.room!;
    if (!r.matchId) throw new Error(t("room.noGame"));
    session.game = { matchId: r.matchId, lastSeq: "0" };
    saveOrigin(r.matchId, { game: r.game, variant: r.variant, opponent: "friend", level: BotLevel.UNSPECIFIED, seat: Seat.UNSPECIFIED, clock: 0, rated: r.rated });
    go(`#/game/${r.matchId}`);
  } catch (err) {
    if (isBusy(err) && btn.isConnected) btn.closest(".open-room")?.after(await busyNotice(id));
    else toast(() => errorText(err), "error");
    btn.disabled = false;
  }
}

function roomScreen(id: Identity, roomId: string, password: string): { dispose: () => void } {
  const ctl = new AbortController();
  const status = h("p", { class: "muted", role: "status" }, t("room.opening"));
  const linkBox = h("div", { class: "invite" });
  const title = h("h1", {}, t("room.title"));
  frame(id, h("section", { class: "panel narrow room" }, title, linkBox, status,
    h("button", { class: "link", onclick: async () => {
      ctl.abort();
      try { await api(id.token).lobby.leaveRoom({ roomId }); } catch { /* closed already */ }
      go("#/play");
    } }, t("cancel"))));
  (async () => {
    try {
      for await (const u of api(id.token).lobby.watchRoom({ roomId }, { signal: ctl.signal })) {
        const r = u.room!;
        const pub = r.visibility === RoomVisibility.PUBLIC;
        if (!linkBox.firstChild && r.inviteCode) {
          title.textContent = pub ? t("room.public.title") : t("room.private.title");
          const url = `${location.origin}${location.pathname}#/join/${r.inviteCode}${pub ? "" : `?pw=${encodeURIComponent(password)}`}`;
          const input = h("input", { id: "invite-link", readonly: true, value: url, "aria-label": t("room.link"), onfocus: (e: Event) => (e.target as HTMLInputElement).select() });
          linkBox.append(
            pub ? h("p", { id: "room-listed" }, t("room.listed")) : "",
            h("p", {}, t(pub ? "room.sendPublic" : "room.send", { what: `${gameName(r.game)} · ${variantName(r.game, r.variant)} · ${timeControlText(r.timeControl)}` })),
            h("div", { class: "row" }, input, h("button", { onclick: async () => {
              try { await navigator.clipboard.writeText(url); toast(() => t("room.copied")); } catch { input.select(); }
            } }, t("room.copy"))),
            pub
              ? h("p", { class: "muted small" }, ...fill(t("room.orCodePublic", { code: "\u0000" }), h("strong", { id: "invite-code" }, r.inviteCode)))
              : h("p", { class: "muted small" }, ...fill(t("room.orCode", { code: "\u0000", password: "\u0001" }), h("strong", { id: "invite-code" }, r.inviteCode), h("strong", { id: "room-pw" }, password))));
        }
        if (r.matchId) {
          session.game = { matchId: r.matchId, lastSeq: "0" };
          const o = sessionStorage.getItem(`tabuleiro.origin.room.${roomId}`);
          if (o) localStorage.setItem(`tabuleiro.origin.${r.matchId}`, o);
          go(`#/game/${r.matchId}`);
          return;
        }
        if (r.status === RoomStatus.CLOSED) {
          status.textContent = t("room.closed");
          return;
        }
        status.textContent = pub ? t("room.waitingPublic") : t("room.waiting");
      }
    } catch (err) {
      if (!ctl.signal.aborted) status.textContent = errorText(err);
    }
  })();
  return { dispose: () => ctl.abort() };
}

/**
 * acceptedInvite is the invite code the player has just said yes to (the
 * invite page's "Join the game", the lobby's Join box): its join screen
 * joins at once instead of asking again.
 */
let acceptedInvite = "";

/** showInvite fills el with who invites to what (GetInvite), or says the invite opens nothing. */
async function showInvite(el: HTMLElement, code: string, password: string): Promise<void> {
  try {
    const r = await api().lobby.getInvite({ inviteCode: code, password });
    const started = !!r.room && r.room.status !== RoomStatus.OPEN;
    el.textContent = started ? t("invite.started") : `${inviteLine(r.room!)}.`;
    el.classList.toggle("error", started);
    el.hidden = false;
    // The picture shows the game the invite is to.
    const art = document.querySelector<HTMLElement>(".hero-art");
    if (art && r.room && r.room.game !== Game.QUORIDOR) {
      clear(art);
      art.dataset.game = gameName(r.room.game);
      art.append(svg(gameArt(r.room.game)));
    }
  } catch (err) {
    // A wrong or missing password is asked for when joining.
    if (err instanceof ConnectError && err.code === Code.NotFound) {
      el.textContent = t("invite.gone");
      el.classList.add("error");
      el.hidden = false;
    }
  }
}

async function joinScreen(id: Identity, code: string, password: string): Promise<void> {
  const accepted = acceptedInvite === code;
  acceptedInvite = "";
  if (!accepted) {
    // Say who invites to what, and ask, before taking the seat.
    let room;
    try {
      room = (await api(id.token).lobby.getInvite({ inviteCode: code, password })).room;
    } catch {
      // The join says why (and asks for a password).
    }
    if (room && room.status !== RoomStatus.OPEN && !room.members.some((m) => m.playerId === id.playerId)) {
      // The room's game began (and may have ended): its invite opens nothing now.
      frame(id, h("section", { class: "panel narrow invite-card" },
        h("h1", { id: "invite-title" }, t("invite.startedTitle")),
        h("p", { class: "lead", id: "invite-started" }, t("invite.started")),
        h("a", { class: "button primary", href: "#/play" }, t("back.lobby"))));
      return;
    }
    if (room && !room.members.some((m) => m.playerId === id.playerId)) {
      frame(id, h("section", { class: "panel narrow invite-card" },
        h("h1", { id: "invite-title" }, t("invite.title")),
        h("p", { class: "lead invite-details", id: "invite-details" }, `${inviteLine(room)}.`),
        h("div", { class: "row" },
          h("button", { class: "primary", id: "accept-invite", onclick: () => { void joinRoom(id, code, password); } }, t("join.button")),
          h("a", { class: "button", id: "decline-invite", href: "#/play" }, t("decline")))));
      return;
    }
  }
  await joinRoom(id, code, password);
}

async function joinRoom(id: Identity, code: string, password: string): Promise<void> {
  frame(id, h("section", { class: "panel narrow" }, h("h1", {}, t("join.joining")), h("p", { class: "muted" }, t("join.room", { code }))));
  try {
    const j = await api(id.token).lobby.joinRoom({ target: { case: "inviteCode", value: code }, password });
    if (j.room?.matchId) {
      session.game = { matchId: j.room.matchId, lastSeq: "0" };
      saveOrigin(j.room.matchId, { game: j.room.game, variant: j.room.variant, opponent: "friend", level: BotLevel.UNSPECIFIED, seat: Seat.UNSPECIFIED, clock: 0, rated: j.room.rated });
      location.replace(`#/game/${j.room.matchId}`);
      return;
    }
    // A public room waits for another player.
    location.replace(`#/room/${j.room!.roomId}`);
  } catch (err) {
    const pw = passwordInput({ id: "join-pw", placeholder: t("room.password"), "aria-label": t("room.password"), value: password });
    frame(id, h("section", { class: "panel narrow" }, h("h1", {}, t("join.cannot")), h("p", { class: "error" }, errorText(err)),
      err instanceof ConnectError && err.code === Code.PermissionDenied
        ? h("form", { class: "row", onsubmit: (e: Event) => {
          e.preventDefault();
          // The player said yes to this invite already: the retry joins, with no second question.
          acceptedInvite = code;
          go(`#/join/${encodeURIComponent(code)}?pw=${encodeURIComponent(pw.input.value)}`);
        } }, pw.el, h("button", { type: "submit" }, t("tryAgain")))
        : false,
      h("a", { class: "button", href: "#/play" }, t("back.lobby"))));
  }
}

// ---- quick pairing ----

function queueScreen(id: Identity, params: URLSearchParams): { dispose: () => void } {
  const ctl = new AbortController();
  const game = Number(params.get("game")) as Game;
  const variant = params.get("variant") ?? "";
  const clock = Number(params.get("clock") ?? "2");
  const rated = params.get("rated") === "1";
  const status = h("p", { role: "status", id: "queue-status" }, t("queue.joining"));
  const title = h("h1", {}, t("queue.title"));
  const spinner = h("div", { class: "spinner", "aria-hidden": "true" });
  const window_ = h("p", { class: "muted" });
  const offer = h("div");
  const started = Date.now();
  const elapsed = h("p", { class: "elapsed" }, "0:00");
  const tick = setInterval(() => {
    const s = Math.floor((Date.now() - started) / 1000);
    elapsed.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }, 500);
  const cancel = h("button", { onclick: () => { ctl.abort(); go("#/play"); } }, t("cancel"));
  frame(id, h("section", { class: "panel narrow queue" },
    title, h("p", {}, `${gameName(game)} · ${variantName(game, variant)} · ${clockChoices[clock]?.base ? clockChoices[clock].label : t("clock.none")}${rated ? ` · ${t("rated")}` : ""}`),
    spinner, elapsed, status, window_, offer, cancel));
  (async () => {
    try {
      for await (const u of api(id.token).lobby.findMatch({ game, variant, timeControl: tcOf(clock), rated, acceptBotOffer: true }, { signal: ctl.signal })) {
        switch (u.update.case) {
          case "queued":
            status.textContent = t("queue.waiting");
            if (rated) window_.textContent = t("queue.window.rating", { rating: Math.round(u.update.value.rating), min: Math.round(u.update.value.ratingMin), max: Math.round(u.update.value.ratingMax) });
            break;
          case "windowWidened":
            if (rated) window_.textContent = t("queue.window", { min: Math.round(u.update.value.ratingMin), max: Math.round(u.update.value.ratingMax) });
            break;
          case "botOffered": {
            const level = u.update.value.level;
            clear(offer);
            offer.append(h("p", {}, t("queue.nobody")), h("button", { class: "primary", onclick: () => {
              ctl.abort();
              void start(id, { game, variant, opponent: "bot", level, seat: Seat.UNSPECIFIED, clock: 0, rated: false });
            } }, t("queue.playBot", { level: levelName(level).toLowerCase() })));
            break;
          }
          case "matched": {
            const m = u.update.value;
            session.game = { matchId: m.matchId, lastSeq: "0" };
            saveOrigin(m.matchId, { game, variant, opponent: "queue", level: BotLevel.UNSPECIFIED, seat: Seat.UNSPECIFIED, clock, rated });
            go(`#/game/${m.matchId}`);
            return;
          }
        }
      }
    } catch (err) {
      if (ctl.signal.aborted) return;
      if (isBusy(err)) {
        // A game in progress already (Back from it to the queue): no pairing, the way back to it.
        clearInterval(tick);
        const note = await busyNotice(id);
        if (ctl.signal.aborted) return;
        title.textContent = t("queue.busy");
        spinner.remove();
        elapsed.remove();
        status.replaceWith(note);
        return;
      }
      // Refused (a guest not yet allowed rated play says why) or ended:
      // the queue is over, and the title says so above the reason.
      clearInterval(tick);
      title.textContent = t(rated ? "queue.refused.rated" : "queue.refused");
      spinner.remove();
      elapsed.remove();
      status.textContent = errorText(err);
      // Nothing is left to cancel: the ways on are to queue again (without
      // the rating when that was refused) or to go back.
      const again = new URLSearchParams({ game: String(game), variant, clock: String(clock), rated: "" });
      cancel.replaceWith(h("div", { class: "row" },
        h("button", { class: "primary", id: "queue-again", onclick: () => go(`#/queue?${again}`) }, t(rated ? "queue.casualInstead" : "queue.again")),
        h("a", { class: "button", href: "#/play" }, t("back.lobby"))));
    }
  })();
  return { dispose: () => { ctl.abort(); clearInterval(tick); } };
}

// ---- live games ----

/** WATCH_REFRESH_MS is how often the live games list is read again while it is open. */
const WATCH_REFRESH_MS = 5000;

function watchScreen(id: Identity): { dispose: () => void } {
  const list = h("div", { class: "list", id: "live-list", "aria-live": "polite" }, h("p", { class: "muted" }, t("loading")));
  const note = h("p", { class: "muted small", id: "live-updated" });
  frame(id, h("section", { class: "panel" }, h("h1", {}, t("live.title")),
    h("p", { class: "muted small", id: "private-note" }, t("live.private")),
    list, note));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  // The list is read again every few seconds (as lichess's current games
  // are): new games appear, finished ones go, ply counts move on.
  const load = async () => {
    try {
      const r = await api(id.token).lobby.listLiveMatches({ pageSize: 50 });
      if (stopped) return;
      clear(list);
      if (!r.matches.length) list.append(h("p", { class: "muted" }, t("live.none")));
      for (const m of r.matches) {
        // One's own game is played, not watched: its link takes the seat back.
        const mine = m.participants.some((p) => p.playerId !== "" && p.playerId === id.playerId);
        list.append(summaryRow(m, mine
          ? h("a", { class: "button small primary", href: `#/game/${m.matchId}` }, t("live.yours"))
          : h("a", { class: "button small", href: `#/watch/${m.matchId}` }, t("live.watch"))));
      }
      note.textContent = t("live.updated", { time: timeOfDay(Date.now()) });
    } catch (err) {
      if (!stopped) note.textContent = t("live.failed", { error: errorText(err) });
    }
    if (!stopped) timer = setTimeout(() => void load(), WATCH_REFRESH_MS);
  };
  void load();
  return { dispose: () => { stopped = true; clearTimeout(timer); } };
}

// ---- history ----

/**
 * ENDED_WAIT_MS is how long after a game ended here the History screen
 * waits for its record (written a moment after the end), asking again
 * every ENDED_POLL_MS.
 */
const ENDED_WAIT_MS = 30_000;
const ENDED_POLL_MS = 1000;

async function historyScreen(id: Identity): Promise<{ dispose: () => void }> {
  const list = h("div", { class: "list" }, h("p", { class: "muted" }, t("loading")));
  frame(id, h("section", { class: "panel" }, h("h1", {}, t("history.title")), list));
  let token = "";
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const more = h("button", { onclick: () => void load() }, t("history.more"));
  const load = async () => {
    const first = !token;
    const r = await api(id.token).lobby.listGames({ pageSize: 30, pageToken: token });
    if (stopped) return;
    if (first) clear(list);
    // The game that just ended here is written to the history a moment
    // after its end: until it is, a line says so and the list is asked
    // again.
    const waiting = first && awaitingEnded(session.ended, r.games.map((g) => g.matchId), Date.now(), ENDED_WAIT_MS);
    if (waiting) {
      list.append(h("p", { class: "muted", id: "history-saving", "aria-live": "polite" }, t("history.saving")));
      timer = setTimeout(() => void load().catch(() => {}), ENDED_POLL_MS);
    }
    if (!r.games.length && first && !waiting) list.append(h("p", { class: "muted" }, t("history.none")));
    more.remove();
    for (const g of r.games) {
      const names = g.participants.map((p) => playerName(p)) as [string, string];
      const title = outcomeTitle(g.outcome, g.yourSeat, [names[0] ?? "", names[1] ?? ""]);
      const cls = outcomeClass(g.outcome, g.yourSeat);
      list.append(summaryRow(g, h("div", { class: "summary-side" },
        h("span", { class: `result ${cls}` }, title), h("span", { class: "muted small" }, outcomeLine(g.outcome, g.game, g.yourSeat, [names[0] ?? "", names[1] ?? ""], g.participants.length < 2, g.plyCount)),
        h("span", { class: "muted small" }, g.endedAt ? dateTime(timestampMs(g.endedAt)) : ""),
        h("a", { class: "button small", href: `#/replay/${g.matchId}` }, t("history.replay")),
        g.plyCount > 0 && g.participants.length >= 2 ? h("a", { class: "button small", href: `#/replay/${g.matchId}?review=1` }, t("review.button")) : false)));
    }
    if (waiting) return; // the first page again, in a moment
    token = r.nextPageToken;
    if (token) list.append(more);
  };
  await load();
  return { dispose: () => { stopped = true; clearTimeout(timer); } };
}

// ---- replay ----

/**
 * betterMarks draws a review's better ply on the board of the ply it
 * would have replaced: a wall as a wall outline, a pawn's or a piece's
 * move as its piece ringed and a dot where it would have gone, a Banqi
 * reveal as its square ringed.
 */
function betterMarks(game: Game, best: string | undefined): Partial<BoardState> {
  const shape = best ? plyShape(game, best) : undefined;
  const name = (q: Square) => squareName(q.file, q.rank);
  switch (shape?.kind) {
    case "wall":
      return { preview: { wall: shape.wall, state: "valid" } };
    case "pawn":
      return { destinations: [name(shape.to)] };
    case "move":
      return { selected: name(shape.path[0]), destinations: [name(shape.path[shape.path.length - 1])] };
    case "reveal":
      return { selected: name(shape.at) };
    default:
      return {};
  }
}

async function replayScreen(id: Identity, gameId: string, ply: string | null, review = false): Promise<{ dispose: () => void }> {
  frame(id, h("section", { class: "panel narrow" }, h("p", { class: "muted" }, t("replay.loading"))));
  const rec = (await loadRecord(gameId, () => api(id.token).lobby.getGame({ gameId })))?.record;
  if (!rec) {
    frame(id, h("section", { class: "panel narrow" }, h("h1", {}, t("replay.none")), h("p", { class: "error" }, t(NO_RECORD)),
      h("a", { class: "button", href: "#/" }, t("back.lobby"))));
    return { dispose: () => {} };
  }
  const s = rec.summary!;
  // A bot's badge names its level with its ladder rating, as in the live game.
  const variant = (await variants().catch(() => [] as Variant[])).find((v) => v.game === s.game && v.id === s.variant);
  const botBadge = (l: BotLevel) => botRatingBadge(variant, l);
  const views = replayViews(s.game, s.variant, rec.plies, rec.layout);
  // A replay opens at the start (the player steps through it, or jumps to
  // the end); ?ply=N opens it at ply N.
  let at = ply !== null && /^\d+$/.test(ply) ? Math.min(views.length - 1, Number(ply)) : 0;
  const flipped = s.yourSeat === Seat.SECOND && s.game !== Game.BANQI;
  // As in the live game: the viewer's seat at the bottom, each seat's
  // strip with its name and what the position gives it (walls left…).
  const bottom = s.yourSeat === Seat.SECOND ? Seat.SECOND : Seat.FIRST;
  const top = h("div", { class: "strip top-strip", "data-seat": Seat[bottom === Seat.FIRST ? Seat.SECOND : Seat.FIRST] });
  const under = h("div", { class: "strip bottom-strip", "data-seat": Seat[bottom] });
  const strip = (el: HTMLElement, seat: Seat) => {
    const p = s.participants.find((x) => x.seat === seat);
    const { token, extra } = seatParts(views[at], seat, seat === s.yourSeat ? true : s.yourSeat !== Seat.UNSPECIFIED ? (p && playerName(p)) : undefined);
    clear(el);
    el.append(h("span", { class: "strip-name" }, token, h("span", { class: "pname" }, p ? playerLink(p) : "—"),
      seat === s.yourSeat ? h("span", { class: "you" }, t("you")) : false,
      p?.rating !== undefined ? h("span", { class: "rating" }, String(p.rating)) : false,
      p && p.botLevel !== BotLevel.UNSPECIFIED ? botBadge(p.botLevel) : false), extra);
  };
  const boardBox = h("div", { class: "board-box" });
  const moves = h("ol", { class: "moves", "aria-label": t("moves") });
  const counter = h("span", { class: "counter", "aria-live": "polite" });
  const show = () => {
    clear(boardBox);
    boardBox.append(svg(renderBoard({ view: views[at], flipped, ...betterMarks(s.game, panel?.better(at)) })));
    strip(top, bottom === Seat.FIRST ? Seat.SECOND : Seat.FIRST);
    strip(under, bottom);
    counter.textContent = t("replay.counter", { at, count: views.length - 1 });
    for (const b of moves.querySelectorAll("button")) b.classList.toggle("on", Number(b.dataset.ply) === at);
    // The list scrolls to the ply, the page does not: on a phone the list
    // is below the board, and scrollIntoView would scroll the page down
    // under the sticky header (the replay opens at its top, as the game does).
    const on = moves.querySelector<HTMLElement>("button.on");
    if (on) scrollWithin(moves, on);
    panel?.show(at);
  };
  const goTo = (n: number) => { at = Math.max(0, Math.min(views.length - 1, n)); show(); };
  for (const row of moveRows(rec.plies)) {
    const cell = (p?: { ply: number; text: string }) => p
      ? h("button", { class: "ply", "data-ply": p.ply, onclick: () => goTo(p.ply) }, p.text)
      : h("span", { class: "ply empty" });
    moves.append(h("li", {}, h("span", { class: "num" }, `${row.number}.`), cell(row.first), cell(row.second)));
  }
  const names = s.participants.map((p) => playerName(p)) as [string, string];
  // The expert's review (lobby.v1 ReviewGame): a game of two players with plies.
  const seatName = (seat: Seat) => { const p = s.participants.find((x) => x.seat === seat); return (p && playerName(p)) ?? ""; };
  const panel: ReviewPanel | undefined = rec.plies.length && s.participants.length >= 2
    ? new ReviewPanel(id.token, gameId, { goTo: (n) => goTo(n), names: [seatName(Seat.FIRST), seatName(Seat.SECOND)], moves })
    : undefined;
  const change = rec.ratingChanges.find((r) => r.playerId === id.playerId);
  const icon = (d: string) => svg(`<svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true"><path d="${d}" fill="currentColor"/></svg>`);
  const nav = h("div", { class: "replay-nav" },
    h("button", { onclick: () => goTo(0), "aria-label": t("replay.first"), title: t("replay.first.key") }, icon("M4 4h2.5v12H4zM16 4v12L7.5 10z")),
    h("button", { onclick: () => goTo(at - 1), "aria-label": t("replay.prev"), title: t("replay.prev.key"), id: "prev" }, icon("M14 4v12L5.5 10z")),
    counter,
    h("button", { onclick: () => goTo(at + 1), "aria-label": t("replay.next"), title: t("replay.next.key"), id: "next" }, icon("M6 4v12l8.5-6z")),
    h("button", { onclick: () => goTo(views.length - 1), "aria-label": t("replay.last"), title: t("replay.last.key"), id: "last" }, icon("M13.5 4H16v12h-2.5zM4 4v12l8.5-6z")));
  frame(id, h("div", { class: "game-layout replay" },
    h("div", { class: "board-col" }, top, boardBox, under, nav),
    h("aside", { class: "side-col" }, h("section", { class: "panel" },
      h("h1", {}, `${gameName(s.game)} · ${variantName(s.game, s.variant)}`),
      h("p", { class: "result-line" }, outcomeTitle(s.outcome, s.yourSeat, names), t("sentence.end"),
        h("span", { class: "muted" }, outcomeLine(s.outcome, s.game, s.yourSeat, [names[0] ?? "", names[1] ?? ""], s.participants.length < 2, rec.plies.length))),
      change ? h("p", {}, ratingText(change.before, change.after)) : false,
      ...(s.game === Game.BANQI ? letterLegend() : []),
      moves,
      panel?.el ?? false,
      rec.seed ? h("p", { class: "muted small seed" }, t("replay.seed", { seed: rec.seed.slice(0, 16) })) : false))));
  piecesMenu(s.game === Game.BANQI);
  show();
  if (review) void panel?.run();
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowLeft") goTo(at - 1);
    else if (e.key === "ArrowRight") goTo(at + 1);
    else if (e.key === "Home") goTo(0);
    else if (e.key === "End") goTo(views.length - 1);
    else return;
    e.preventDefault();
  };
  window.addEventListener("keydown", onKey);
  return { dispose: () => window.removeEventListener("keydown", onKey) };
}

// ---- stats ----

async function statsScreen(id: Identity): Promise<void> {
  const r = await api(id.token).lobby.getStats({});
  // A table never widens the page: on a narrow screen it scrolls in its card.
  const table = (head: string[], rows: (string | number)[][]) => h("div", { class: "table-box" }, h("table", {},
    h("thead", {}, h("tr", {}, ...head.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((x) => h("td", {}, String(x))))))));
  const ratings = r.ratings.length
    ? table([t("stats.game"), t("lobby.variant"), t("stats.rating"), t("stats.deviation"), t("stats.games")], r.ratings.map(ratingRow))
    : h("p", { class: "muted" }, t("stats.noRated"));
  const byGame = games.map((g) => {
    const rows = levels.map((l) => {
      const b = r.botRecords.find((x) => x.game === g && x.level === l);
      return [levelName(l), num(b?.wins ?? 0), num(b?.draws ?? 0), num(b?.losses ?? 0)];
    });
    return h("div", { class: "bot-table" }, h("h3", {}, gameName(g)), table([t("stats.bot"), t("stats.won"), t("stats.drawn"), t("stats.lost")], rows));
  });
  // An account is shown by its username.
  frame(id, h("section", { class: "panel" }, h("h1", {}, `${r.username || r.displayName || id.name}`),
    h("h2", {}, t("stats.ratings")), ratings,
    h("h2", {}, t("stats.bots")), h("div", { class: "bot-tables" }, ...byGame)));
}
