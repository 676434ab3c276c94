package player

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// qState is a Quoridor position with the closed edges that the bot's own
// breadth-first distances need, kept up to date as walls are placed.
type qState struct {
	pos    quoridor.Position
	closed [4]bb // per direction (up, down, right, left): squares whose exit is closed
	hWalls uint64
	vWalls uint64
	ply    int8 // distance from the search's root
}

// bb is a set of the 81 squares, square file+9*rank at bit file+9*rank.
type bb struct{ lo, hi uint64 }

func bit(sq int) bb {
	if sq < 64 {
		return bb{lo: 1 << sq}
	}
	return bb{hi: 1 << (sq - 64)}
}

func (b bb) or(c bb) bb      { return bb{b.lo | c.lo, b.hi | c.hi} }
func (b bb) and(c bb) bb     { return bb{b.lo & c.lo, b.hi & c.hi} }
func (b bb) andNot(c bb) bb  { return bb{b.lo &^ c.lo, b.hi &^ c.hi} }
func (b bb) empty() bool     { return b.lo|b.hi == 0 }
func (b bb) shl(n uint) bb   { return bb{b.lo << n, b.hi<<n | b.lo>>(64-n)} }
func (b bb) shr(n uint) bb   { return bb{b.lo>>n | b.hi<<(64-n), b.hi >> n} }
func (b bb) board() bb       { return bb{b.lo, b.hi & (1<<17 - 1)} }
func (b bb) count() int      { return bits.OnesCount64(b.lo) + bits.OnesCount64(b.hi) }
func (b bb) has(sq int) bool { return !b.and(bit(sq)).empty() }
func rankBB(r int) (m bb) {
	for f := range 9 {
		m = m.or(bit(f + 9*r))
	}
	return m
}

func fileBB(f int) (m bb) {
	for r := range 9 {
		m = m.or(bit(f + 9*r))
	}
	return m
}

const (
	up = iota
	down
	right
	left
)

var (
	qGoals = [2]bb{rankBB(8), rankBB(0)} // white's, black's (Q1)
	// qEdges are the board's own closed exits.
	qEdges = [4]bb{rankBB(8), rankBB(0), fileBB(8), fileBB(0)}
)

func newQState(p quoridor.Position) qState {
	s := qState{pos: p, closed: qEdges}
	for _, w := range p.Walls() {
		s.addWall(w)
	}
	return s
}

// addWall closes the edges of wall w (Q1: anchor a square nearest a1).
func (s *qState) addWall(w quoridor.Move) {
	at := w.At()
	f, r := at.File(), at.Rank()
	a := uint(f + 8*r)
	sq := f + 9*r
	if w.Orientation() == quoridor.Horizontal {
		s.hWalls |= 1 << a
		pair := bit(sq).or(bit(sq + 1))
		s.closed[up] = s.closed[up].or(pair)
		s.closed[down] = s.closed[down].or(pair.shl(9))
		return
	}
	s.vWalls |= 1 << a
	pair := bit(sq).or(bit(sq + 9))
	s.closed[right] = s.closed[right].or(pair)
	s.closed[left] = s.closed[left].or(pair.shl(1))
}

// expand returns the squares one open step from b.
func (s *qState) expand(b bb) bb {
	return b.andNot(s.closed[up]).shl(9).
		or(b.andNot(s.closed[down]).shr(9)).
		or(b.andNot(s.closed[right]).shl(1)).
		or(b.andNot(s.closed[left]).shr(1)).board()
}

// noPath is the distance of a pawn walled off from its goal, which legal
// positions never have (Q3.4).
const noPath = 99

// dist is the length of the shortest path of side's pawn to its goal rank,
// pawns not counted as obstacles.
func (s *qState) dist(side int) int {
	goal := qGoals[side]
	front := bit(int(s.pos.Pawn(seatOfSide(side))))
	seen := front
	for d := 0; ; d++ {
		if !front.and(goal).empty() {
			return d
		}
		front = s.expand(front).andNot(seen)
		if front.empty() {
			return noPath
		}
		seen = seen.or(front)
	}
}

func seatOfSide(side int) engine.Seat {
	if side == 0 {
		return engine.First
	}
	return engine.Second
}

func sideOfSeat(s engine.Seat) int {
	if s == engine.Second {
		return 1
	}
	return 0
}

// qGame is the search adapter for Quoridor. step is the value of one step
// of path difference; walls[n] the value of having n walls left.
type qGame struct {
	walls *[11]int
	// w, if set, replaces walls and the side to move's half step (the
	// expert's evaluation).
	w      *qWeights
	simple bool // easy's heuristic: path difference only
	// narrow limits the walls searched fullWidth or more plies below the
	// root to those touching a shortest path of the opponent's pawn (the
	// expert's selective search); own adds those touching a shortest path
	// of the mover's own pawn.
	narrow    bool
	own       bool
	fullWidth int8
	// pathOrder orders the pawn moves by how much they shorten the
	// mover's path rather than by their direction.
	pathOrder bool
	// halo widens narrow's walls against the opponent's pawn to those
	// touching a square a step from its shortest paths (lab variant halo:
	// the first wall of a pocket, which lengthens no path yet).
	halo bool
}

// qWeights are an evaluation's terms beyond the path difference (qStep a
// step): the side to move's bonus and the value of n walls left.
type qWeights struct {
	tempo int
	walls [11]int
	// threat, if set, credits a side holding walls with threat/100 of a
	// step for every step the best wall it could place now would add to
	// the other pawn's path (qState.wallGain): what its walls can still do
	// there, and the pocket the other pawn stands in. Off in the expert:
	// uncapped it costs more than half the positions a processor second,
	// and capped within the 15% allowed (threatCap 3-6) it did no better
	// than the fixed table (docs/bots.md, "Wall races and the racer"); the
	// lab screens it (TABULEIRO_QUORIDOR_LAB_EXPERT=threat, threat3...).
	threat int
	// moverOnly credits only the side to move's walls with threat: the
	// wall it can place now (the other side's threat is seen a ply later).
	moverOnly bool
	// pocketOnly credits only the other side's walls with threat: the
	// pocket they can close around the side to move's pawn.
	pocketOnly bool
	// threatCap bounds the steps of a wall's gain that threat credits
	// (at most wallGainCap); the search's leaves skip the threats when the
	// score, moved by threat*threatCap, is outside their window.
	threatCap int
	// fade values only as many walls in hand as the other pawn has steps
	// left (plus fadeSlack): the walls a side can still place before the
	// other arrives.
	fade      bool
	fadeSlack int
	// fadeTurns adds the other side's walls in hand to the walls a side
	// can still place: each wall the other places is a turn it does not
	// step.
	fadeTurns bool
	// wallsBy, if set, replaces walls: wallsBy[n][d-1] is the value of n
	// walls in hand when the other pawn's path is d steps (fitBuckets or
	// more: the last), fitted on lab games (TestFitQuoridorWalls).
	wallsBy *[11][fitBuckets]int
	// scaleNear, if positive, scales the value of a side's walls in hand
	// by the other pawn's path, up to scaleNear steps: walls do less the
	// nearer the other pawn is to its goal.
	scaleNear int
	// threatWalls, if above 1, measures a side's threat as the gain of
	// up to that many of its walls in hand placed greedily
	// (qState.wallsGain): a pocket two walls close.
	threatWalls int
	// layered measures the threats with the cheaper wallGain that tries
	// only the walls closing a whole layer of the shortest paths.
	layered bool
	// race, if positive, searches race plies further at a leaf where the
	// race is tight (qGame.LeafWithin, quoridor_race.go): both paths at
	// most raceNear steps and the side not to move holding walls. Each
	// side then only steps along its shortest path or places one of its
	// raceWalls walls of largest race gain.
	race      int
	raceNear  int
	raceWalls int
	// raceGate, if positive, searches only the tight races where the
	// other side's best wall would add raceGate steps or more to the side
	// to move's path (qState.wallGain, capped at raceGate): a pocket
	// coming.
	raceGate int
	// raceFree does not report the race search's positions to the search
	// (a lab diagnostic: the extension's worth at the main search's
	// depth, its cost uncharged against a node limit).
	raceFree bool
	// raceLeaf, if set, is the evaluation at the race search's horizon
	// (fade, say: in a tight race the walls a side cannot place before the
	// other pawn arrives are worth nothing).
	raceLeaf *qWeights
	// answer, if positive, scores a leaf where the other side holds walls
	// as if it had placed its best wall against the side to move's pawn
	// (up to answer steps of gain, its wall in hand spent) when that is
	// worse for the side to move and leaves the side to move's path longer
	// than the other's: a threat it cannot answer by racing.
	answer int
	// extGain, if positive, searches a ply deeper below a wall that adds
	// extGain steps or more to the other pawn's path (qGame.Extend): a
	// wall race's forcing plies, as a chess engine extends checks.
	extGain int
	// endgame plays out the race when one side holds walls and the
	// other none (qState.wallEndgame, quoridor_endgame.go).
	endgame bool
}

// fitBuckets is the number of path lengths qWeights.wallsBy tells apart:
// 1 to fitBuckets-1 steps, and fitBuckets or more.
const fitBuckets = 10

// Extend is search.Extending: a ply more below a wall that lengthens the
// other pawn's path by qWeights.extGain steps or more.
func (g qGame) Extend(parent, child *qState, m quoridor.Move) int {
	if g.w == nil || g.w.extGain <= 0 || !m.IsWall() {
		return 0
	}
	opp := 1 - sideOfSeat(parent.pos.ToMove())
	if child.dist(opp)-parent.dist(opp) >= g.w.extGain {
		return 1
	}
	return 0
}

// Wall values: medium counts every wall the same; hard and expert-1 value
// the last ones more (the last three cost more than a step of path each),
// so they keep some for the end.
var (
	flatWalls    = [11]int{0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300}
	reserveWalls = [11]int{0, 270, 520, 750, 960, 1160, 1350, 1530, 1700, 1860, 2010}
)

const (
	qStep    = 100
	qRaceWon = 5000
	// qFullWidth is how many plies from the root expert-1 searches every
	// ply before it narrows the walls: three, the hard level's whole
	// search, so that it sees every wall tactic hard can see and narrows
	// only beyond it. (The expert narrows from the first reply on, with the
	// walls of both pawns' paths, and searches deeper.)
	qFullWidth = 3
)

func (g qGame) Moves(s *qState, dst []quoridor.Move) []quoridor.Move {
	if !g.narrow || s.ply < g.fullWidth {
		return s.pos.LegalMoves(dst)
	}
	// Only the walls that may matter are checked for legality at all.
	me := sideOfSeat(s.pos.ToMove())
	anchors := s.pathAnchors(1-me, g.halo)
	if g.own {
		anchors |= s.pathAnchors(me, false)
	}
	return s.pos.LegalMovesWithin(dst, anchors)
}

// pathAnchors returns the wall anchors (bit file+8*rank) of the walls that
// touch a square on some shortest path of side's pawn to its goal (with
// halo, or a step from one).
func (s *qState) pathAnchors(side int, halo bool) uint64 {
	// Layers of distance from the pawn, then from the goal; a square is on
	// a shortest path when its two distances add up to the shortest.
	var fromPawn [noPath]bb
	front := bit(int(s.pos.Pawn(seatOfSide(side))))
	seen := front
	d := 0
	for ; front.and(qGoals[side]).empty(); d++ {
		if d+1 >= noPath {
			return 0
		}
		fromPawn[d] = front
		front = s.expand(front).andNot(seen)
		if front.empty() {
			return 0
		}
		seen = seen.or(front)
	}
	fromPawn[d] = front.and(qGoals[side])
	on := fromPawn[d]
	back := fromPawn[d]
	for i := d - 1; i >= 0; i-- {
		back = s.expand(back).and(fromPawn[i])
		on = on.or(back)
	}
	if halo {
		on = on.or(s.expand(on))
	}
	// A wall anchored on square sq touches sq, sq+1, sq+9 and sq+10; its
	// anchor bit is file+8*rank, so each rank's first 8 squares move down.
	touch := on.or(on.shr(1)).or(on.shr(9)).or(on.shr(10))
	var anchors uint64
	for r := range 8 {
		anchors |= (touch.shr(uint(9*r)).lo & 0xFF) << (8 * r)
	}
	return anchors
}

// Play plays m unchecked: the search plays only the plies Moves listed,
// which are legal, so PlayMove's check would give the same position.
func (qGame) Play(s *qState, m quoridor.Move) qState {
	n := *s
	n.pos = s.pos.PlayUnchecked(m)
	n.ply++
	if m.IsWall() {
		n.addWall(m)
	}
	return n
}

func (qGame) Terminal(s *qState) (int, bool) {
	o := s.pos.Outcome()
	switch o.Result {
	case engine.Win:
		return -search.Win, true // the pawn that just moved reached its goal (Q4)
	case engine.Draw:
		return 0, true
	}
	return 0, false
}

func (g qGame) Eval(s *qState) int { return g.EvalWithin(s, -qEvalInf, qEvalInf) }

// qEvalInf is beyond every evaluation: EvalWithin's window when it must be
// exact.
const qEvalInf = 1 << 20

// EvalWithin is Eval for the search's leaves (search.Bounded): the wall
// threat terms, which cost most, are computed only when the score without
// them, moved by the most they can add, could still fall inside the
// window (alpha, beta); otherwise that bound is returned.
func (g qGame) EvalWithin(s *qState, alpha, beta int) int {
	me := sideOfSeat(s.pos.ToMove())
	return g.evalDists(s, me, s.dist(me), s.dist(1-me), alpha, beta)
}

// evalDists is EvalWithin with the side to move (me) and the two paths'
// lengths already known.
func (g qGame) evalDists(s *qState, me, dMe, dOpp, alpha, beta int) int {
	tempo, walls := qStep/2, g.walls // the side to move is half a step ahead
	if g.w != nil {
		tempo, walls = g.w.tempo, &g.w.walls
	}
	score := qStep*(dOpp-dMe) + tempo
	if g.simple {
		return score
	}
	wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
	// A race that the loser cannot slow down with walls: the side to move
	// arrives first when its path is no longer (pawns meeting aside).
	if wOpp == 0 && dMe <= dOpp {
		return qRaceWon + score
	}
	if wMe == 0 && dOpp < dMe {
		return -qRaceWon + score
	}
	if g.w != nil && g.w.wallsBy != nil {
		score += g.w.wallsBy[wMe][min(dOpp, fitBuckets)-1] - g.w.wallsBy[wOpp][min(dMe, fitBuckets)-1]
	} else if g.w != nil && g.w.fade {
		// Walls are worth only what can be placed before the other pawn
		// arrives: about one a step of its path.
		uMe, uOpp := dOpp+g.w.fadeSlack, dMe+g.w.fadeSlack
		if g.w.fadeTurns {
			// Each wall the other side places gives this side a turn more.
			uMe, uOpp = uMe+wOpp, uOpp+wMe
		}
		score += walls[min(wMe, uMe)] - walls[min(wOpp, uOpp)]
	} else if g.w != nil && g.w.scaleNear > 0 {
		n := g.w.scaleNear
		score += (walls[wMe]*min(dOpp, n) - walls[wOpp]*min(dMe, n)) / n
	} else {
		score += walls[wMe] - walls[wOpp]
	}
	if g.w == nil || g.w.threat == 0 {
		return score
	}
	// The threats: what the best wall each side could place now would
	// add to the other pawn's path, credited up to threatCap steps.
	up, down := 0, 0 // the most the threats can add and take
	if wMe > 0 && !g.w.pocketOnly {
		up = g.w.threat * g.w.threatCap
	}
	if wOpp > 0 && !g.w.moverOnly {
		down = g.w.threat * g.w.threatCap
	}
	if score+up <= alpha {
		return score + up
	}
	if score-down >= beta {
		return score - down
	}
	// The threat against the side to move first: a pocket around its
	// pawn.
	if down > 0 {
		score -= g.w.threat * s.wallsGain(me, dMe, g.w.threatCap, g.w.layered, min(wOpp, max(g.w.threatWalls, 1)))
		if score+up <= alpha {
			return score + up
		}
	}
	if up > 0 {
		score += g.w.threat * s.wallsGain(1-me, dOpp, g.w.threatCap, g.w.layered, min(wMe, max(g.w.threatWalls, 1)))
	}
	return score
}

func (qGame) Hash(s *qState) uint64 {
	h := s.hWalls*0x9E3779B97F4A7C15 ^ s.vWalls*0xC2B2AE3D27D4EB4F
	p := s.pos
	h ^= uint64(p.Pawn(engine.First))<<1 | uint64(p.Pawn(engine.Second))<<9 |
		uint64(p.WallsLeft(engine.First))<<17 | uint64(p.WallsLeft(engine.Second))<<22 |
		uint64(p.Plies()&1)<<27
	h ^= h >> 31
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>29
}

// Order puts pawn moves first (forward ones first, or with pathOrder those
// that bring the pawn nearer its goal), then walls by their
// closeness to the opponent's pawn: a stable counting sort on small keys,
// since it runs at every interior node.
func (g qGame) Order(s *qState, moves []quoridor.Move) {
	const buckets = 3 + 17 // three pawn ranks (forward, level, back), wall distances 0–16
	me := s.pos.ToMove()
	var toGoal [81]int8 // with pathOrder: the pawn destinations' distances to the goal
	if g.pathOrder {
		s.goalDistances(sideOfSeat(me), moves, &toGoal)
	}
	opp := s.pos.Pawn(me.Other())
	from := s.pos.Pawn(me).Rank()
	forward := 1
	if me == engine.Second {
		forward = -1
	}
	var keys [256]uint8
	var count [buckets + 1]int
	if len(moves) > len(keys) {
		return
	}
	for i, m := range moves {
		var k int
		if m.IsPawn() {
			if g.pathOrder {
				k = 1 + int(toGoal[m.To()]) - int(toGoal[s.pos.Pawn(me)]) // 0 nearer the goal, 1 as near, 2 farther
			} else {
				k = 1 - forward*(m.To().Rank()-from) // 0 forward, 1 level, 2 back
			}
			k = min(max(k, 0), 2)
		} else {
			at := m.At()
			k = 3 + min(abs(at.File()-opp.File())+abs(at.Rank()-opp.Rank()), 16)
		}
		keys[i] = uint8(k)
		count[k+1]++
	}
	for k := 1; k <= buckets; k++ {
		count[k] += count[k-1]
	}
	var sorted [256]quoridor.Move
	for i, m := range moves {
		sorted[count[keys[i]]] = m
		count[keys[i]]++
	}
	copy(moves, sorted[:len(moves)])
}

// goalDistances sets d[sq] to the distance to side's goal of the pawn's
// square and of every pawn move's destination, searching back from the goal
// (walls close an edge both ways) only until all of them are reached;
// squares farther than that get the last distance plus one.
func (s *qState) goalDistances(side int, moves []quoridor.Move, d *[81]int8) {
	want := bit(int(s.pos.Pawn(seatOfSide(side))))
	for _, m := range moves {
		if m.IsPawn() {
			want = want.or(bit(int(m.To())))
		}
	}
	front := qGoals[side]
	seen := front
	dist := int8(0)
	for !want.empty() && !front.empty() {
		for hit := front.and(want); !hit.empty(); {
			sq := hit.lowest()
			d[sq] = dist
			hit = hit.andNot(bit(sq))
		}
		want = want.andNot(front)
		front = s.expand(front).andNot(seen)
		seen = seen.or(front)
		dist++
	}
	for !want.empty() {
		sq := want.lowest()
		d[sq] = dist
		want = want.andNot(bit(sq))
	}
}

// lowest returns the lowest square of a non-empty set.
func (b bb) lowest() int {
	if b.lo != 0 {
		return bits.TrailingZeros64(b.lo)
	}
	return 64 + bits.TrailingZeros64(b.hi)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// hardQGame is the hard level's adapter.
func hardQGame() qGame { return qGame{walls: &reserveWalls} }

// expert1QGame is the frozen expert-1's adapter.
func expert1QGame() qGame { return qGame{walls: &reserveWalls, narrow: true, fullWidth: qFullWidth} }

// expertQGame is the expert's adapter: walls worth about three quarters
// of what hard and expert-1 give them (2.1 steps for the first, 1.05 for
// the tenth), every ply at the root and, below it, only the walls touching
// a shortest path of either pawn, pawn moves ordered by the path they save. Measured
// in screening matches against expert-1 and hard (see README.md, "Bot
// strength").
func expertQGame() qGame {
	return qGame{w: &expertWeights, narrow: true, own: true, fullWidth: 1, pathOrder: true}
}

// expertQ is the adapter the expert plays with (a variable so that the lab,
// TestQuoridorLab, can screen variants of it on the same games).
var expertQ = expertQGame()

// expertWeights are the expert's evaluation terms.
//
// The walls are valued halfway between the table fitted on self-play
// (0, 150, 290, 420, 540, 650, 750, 840, 920, 990, 1050) and hard's
// reserveWalls: with the fitted table the expert grew weaker the longer it
// searched (node-limited lab, TestQuoridorLab, against hard: 87.5% at
// 300,000 positions a ply, 80.0% at 900,000), spending its walls early and
// then losing the race to a hard that kept its own to fence the goal row.
// Halfway, on the same games: 89.8% and 95.5%, and 72% against expert-1
// (70% before) at 300,000.
//
// Wall endgames (one side without walls, the other behind) are played out
// instead of valued by the table (qWeights.endgame, quoridor_endgame.go):
// on the lab's 100 games against expert-1 89-0-11 where the table alone
// scored 72-0-28, against the racer 77-3-20 (75-0-25), against hard
// 40-0-0 of 40 (40-0-0).
var expertWeights = qWeights{tempo: qStep / 2, walls: [11]int{0, 210, 405, 585, 750, 905, 1050, 1185, 1310, 1425, 1530}, endgame: true}

func selectQuoridor(ctx context.Context, p quoridor.Position, lvl Level, budget time.Duration, threads int, rng *rand.Rand) (Choice, error) {
	switch lvl {
	case Easy:
		return easyQuoridor(p, rng) // a beginner's policy, see easy_quoridor.go
	case Racer: // the sparring racer, see quoridor_racer.go
		if racerPolicy {
			return racerQuoridor(p, rng)
		}
		return searchRacer(ctx, p, budget, rng)
	}
	gs := levelGames[qState, quoridor.Move, qGame, qGame, qGame]{
		simple: qGame{simple: true},
		medium: qGame{walls: &flatWalls},
		deep:   hardQGame(),
	}
	switch lvl {
	case Expert:
		gs.deep = expertQ
		gs.expert = expertRefinements
	case Expert1:
		gs.deep = expert1QGame()
	}
	m, c, err := choose(ctx, gs, newQState(p), lvl, budget, threads, rng)
	c.Ply = m
	return c, err
}

// Index is the move's index for the search's history table: a Move is
// below 1<<9 (kind in bits 7–8).
func (qGame) Index(m quoridor.Move) int { return int(m) & (search.MaxIndex - 1) }

// expertRefinements are the expert's search refinements.
var expertRefinements = search.Refinements{Killers: true, History: true, Reduce: 4, RootPVS: true}
