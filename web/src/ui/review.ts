// The review of a finished game, on its replay screen (lobby.v1
// ReviewGame, docs/bots.md "Game review"): a progress bar while the expert
// goes through the plies, then the evaluation graph (the first seat's win
// chance after each ply), each ply of the move list marked ?! ? ??, the
// selected ply's better ply and line, each seat's accuracy and counts, and
// a button to the critical moment.
import { api, errorText } from "../api";
import { ReviewMark, type GameReview, type PlyReview } from "../gen/tabuleiro/game/v1/review_pb";
import { Seat } from "../gen/tabuleiro/game/v1/game_pb";
import { num, t } from "../i18n";
import { clear, h, svg } from "./dom";

/** markSign is a mark's sign in the move list ("" for a good ply). */
export function markSign(m: ReviewMark): string {
  switch (m) {
    case ReviewMark.INACCURACY: return "?!";
    case ReviewMark.MISTAKE: return "?";
    case ReviewMark.BLUNDER: return "??";
    default: return "";
  }
}

function markName(m: ReviewMark): string {
  switch (m) {
    case ReviewMark.INACCURACY: return t("review.inaccuracy");
    case ReviewMark.MISTAKE: return t("review.mistake");
    case ReviewMark.BLUNDER: return t("review.blunder");
    default: return t("review.good");
  }
}

const markClass: Record<number, string> = {
  [ReviewMark.INACCURACY]: "inaccuracy",
  [ReviewMark.MISTAKE]: "mistake",
  [ReviewMark.BLUNDER]: "blunder",
};

/** graphSvg draws the first seat's win chance after each ply (0 before any: 50). */
export function graphSvg(plies: PlyReview[], at: number): string {
  const w = 300, hgt = 80;
  const n = Math.max(1, plies.length);
  const x = (i: number) => (i / n) * w;
  const y = (p: number) => hgt - (Math.max(0, Math.min(100, p)) / 100) * hgt;
  const pts = [[0, y(plies[0]?.before ?? 50)], ...plies.map((p, i) => [x(i + 1), y(p.after)])];
  const line = pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ");
  const area = `0,${hgt} ${line} ${w},${hgt}`;
  const dots = plies.map((p, i) => p.mark >= ReviewMark.INACCURACY
    ? `<circle class="g-${markClass[p.mark]}" cx="${x(i + 1).toFixed(1)}" cy="${y(p.after).toFixed(1)}" r="2.6"/>` : "").join("");
  return `<svg class="eval-graph" viewBox="0 0 ${w} ${hgt}" preserveAspectRatio="none" role="img" aria-label="${t("review.graph")}">`
    + `<rect width="${w}" height="${hgt}" class="g-bg"/>`
    + `<polygon points="${area}" class="g-area"/>`
    + `<line x1="0" y1="${hgt / 2}" x2="${w}" y2="${hgt / 2}" class="g-mid"/>`
    + `<polyline points="${line}" class="g-line"/>`
    + `<line x1="${x(at).toFixed(1)}" y1="0" x2="${x(at).toFixed(1)}" y2="${hgt}" class="g-at"/>`
    + dots + `</svg>`;
}

export interface ReviewHooks {
  /** goTo shows the position after ply n. */
  goTo: (n: number) => void;
  /** names are the first's and the second's names. */
  names: [string, string];
  /** moves is the move list whose buttons (data-ply) get the marks. */
  moves: HTMLElement;
}

/**
 * ReviewPanel is the review's part of the replay screen: a Review button,
 * then the progress, then the review. show(at) follows the ply shown.
 */
export class ReviewPanel {
  readonly el = h("section", { class: "review", "aria-live": "polite" });
  private review?: GameReview;
  private at = 0;
  private running = false;

  constructor(private token: string | undefined, private gameId: string, private hooks: ReviewHooks) {
    this.el.append(h("button", { id: "review", onclick: () => void this.run() }, t("review.button")));
  }

  /** run asks for the review and draws it. */
  async run(): Promise<void> {
    if (this.running || this.review) return;
    this.running = true;
    clear(this.el);
    const bar = h("progress", { id: "review-progress", max: 1, value: 0 });
    const label = h("span", { class: "muted small" }, t("review.starting"));
    this.el.append(h("h2", {}, t("review.title")), h("div", { class: "review-progress" }, bar, label));
    try {
      for await (const m of api(this.token).lobby.reviewGame({ gameId: this.gameId })) {
        if (m.event.case === "progress") {
          const { done, total } = m.event.value;
          (bar as HTMLProgressElement).max = Math.max(1, total);
          (bar as HTMLProgressElement).value = done;
          label.textContent = t("review.progress", { done, total });
        } else if (m.event.case === "review") {
          this.review = m.event.value;
        }
      }
      if (!this.review) throw new Error(t("review.noResult"));
      this.draw();
      this.hooks.goTo(this.at); // the board draws the better ply of the ply shown
    } catch (err) {
      clear(this.el);
      this.el.append(h("h2", {}, t("review.title")), h("p", { class: "error", id: "review-error" }, errorText(err)),
        h("button", { id: "review", onclick: () => void this.run() }, t("review.again")));
    } finally {
      this.running = false;
    }
  }

  /** better is the engine's better ply for ply at, when the review has one that differs from the ply played. */
  better(at: number): string | undefined {
    const p = this.review?.plies.find((x) => x.number === at);
    return p && p.best && p.best !== p.played ? p.best : undefined;
  }

  /** show follows the ply shown (after ply at). */
  show(at: number): void {
    this.at = at;
    if (this.review) this.draw();
  }

  private draw(): void {
    const r = this.review!;
    clear(this.el);
    const graph = h("div", { class: "graph-box" });
    graph.append(svg(graphSvg(r.plies, this.at)));
    graph.addEventListener("click", (e) => {
      const box = graph.getBoundingClientRect();
      const n = Math.round(((e.clientX - box.left) / box.width) * r.plies.length);
      this.hooks.goTo(n);
    });
    const seatRow = (i: number) => {
      const s = r.seats[i];
      if (!s) return false;
      return h("tr", {}, h("th", { scope: "row" }, this.hooks.names[i] || (s.seat === Seat.FIRST ? t("review.first") : t("review.second"))),
        h("td", { class: "accuracy" }, `${num(Math.round(s.accuracy))}%`),
        h("td", {}, String(s.inaccuracies)), h("td", {}, String(s.mistakes)), h("td", {}, String(s.blunders)));
    };
    const summary = h("table", { class: "review-summary" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, t("review.accuracy")),
        h("th", { scope: "col", title: t("review.inaccuracies") }, "?!"), h("th", { scope: "col", title: t("review.mistakes") }, "?"),
        h("th", { scope: "col", title: t("review.blunders") }, "??"))),
      h("tbody", {}, seatRow(0), seatRow(1)));
    const critical = r.criticalPly > 0
      ? h("button", { id: "critical", onclick: () => this.hooks.goTo(r.criticalPly) }, t("review.critical", { ply: r.criticalPly }))
      : h("p", { class: "muted small" }, t("review.noCritical"));
    this.el.append(h("h2", {}, t("review.title")), graph,
      h("p", { class: "muted small graph-note" }, t("review.graphNote", { first: this.hooks.names[0] || t("review.first") })),
      summary, critical, this.detail(r));
    // The move list's marks.
    for (const b of this.hooks.moves.querySelectorAll<HTMLElement>("button.ply")) {
      const p = r.plies.find((x) => x.number === Number(b.dataset.ply));
      if (!p || b.dataset.marked) continue;
      b.dataset.marked = "1";
      const sign = markSign(p.mark);
      if (sign) {
        b.classList.add("marked", markClass[p.mark]);
        b.title = markName(p.mark);
        b.append(h("span", { class: "mark", "data-mark": sign }, sign));
      }
    }
  }

  /** detail is the selected ply's judgement: its mark, the better ply and the expert's line. */
  private detail(r: GameReview): HTMLElement {
    const box = h("div", { class: "review-ply", id: "review-ply" });
    const p = r.plies.find((x) => x.number === this.at);
    if (!p) {
      box.append(h("p", { class: "muted small" }, t("review.pick")));
      return box;
    }
    const sign = markSign(p.mark);
    box.append(h("p", {}, h("strong", {}, `${p.number}. ${p.played}${sign}`), " — ", markName(p.mark),
      p.drop >= 0.5 ? ` (${t("review.drop", { points: num(Math.round(p.drop)) })})` : ""));
    if (p.best && p.best !== p.played) {
      box.append(h("p", {}, t("review.best"), " ", h("strong", { class: "best" }, p.best)));
    }
    if (p.line.length) box.append(h("p", { class: "muted small line" }, t("review.line"), " ", p.line.join(" ")));
    return box;
  }
}
