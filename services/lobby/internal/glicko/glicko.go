// Package glicko computes Glicko-2 ratings as Mark Glickman defines them in
// "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf, 2013).
//
// Parameters chosen for Tabuleiro (stated here once; the lobby uses
// Default):
//   - a new player starts at rating 1500, deviation 350, volatility 0.06
//     (the paper's suggested defaults);
//   - τ (the system constant that limits how fast volatility changes) is
//     0.5, inside the paper's advised range 0.3–1.2 and its own example's
//     value;
//   - the convergence tolerance ε of the volatility iteration is 1e-6, as in
//     the paper;
//   - the rating period is one game: each finished rated game updates both
//     players at once, each against the other's rating before the game.
//     With one game per period the deviation never inflates for idle time
//     (step 6 applies once per game); the deviation is capped at 350.
package glicko

import "math"

// scale converts between the Glicko scale and the Glicko-2 scale (step 2).
const scale = 173.7178

// Rating is one player's Glicko-2 state on the Glicko scale.
type Rating struct {
	Rating     float64 // r, 1500 for a new player
	Deviation  float64 // RD, 350 for a new player
	Volatility float64 // σ, 0.06 for a new player
}

// Params are the system's constants.
type Params struct {
	Tau     float64 // τ, the volatility constraint
	Epsilon float64 // convergence tolerance of step 5
	Initial Rating  // a new player's rating
	MaxRD   float64 // the deviation never exceeds this
}

// Default returns the parameters the lobby uses (see the package comment).
func Default() Params {
	return Params{
		Tau:     0.5,
		Epsilon: 1e-6,
		Initial: Rating{Rating: 1500, Deviation: 350, Volatility: 0.06},
		MaxRD:   350,
	}
}

// Result is one game of a rating period against one opponent: Score is 1
// for a win, 0.5 for a draw and 0 for a loss.
type Result struct {
	Opponent Rating
	Score    float64
}

// Update returns the player's rating after a rating period with the given
// results (steps 1–8 of the paper). With no results only the deviation
// grows (step 6 alone).
func (p Params) Update(r Rating, results []Result) Rating {
	mu := (r.Rating - 1500) / scale
	phi := r.Deviation / scale
	sigma := r.Volatility
	if len(results) == 0 {
		phiStar := math.Sqrt(phi*phi + sigma*sigma)
		return Rating{Rating: r.Rating, Deviation: math.Min(phiStar*scale, p.MaxRD), Volatility: sigma}
	}

	// Steps 3 and 4: the estimated variance v and the improvement Δ.
	var invV, sum float64
	for _, res := range results {
		muJ := (res.Opponent.Rating - 1500) / scale
		phiJ := res.Opponent.Deviation / scale
		g := gOf(phiJ)
		e := 1 / (1 + math.Exp(-g*(mu-muJ)))
		invV += g * g * e * (1 - e)
		sum += g * (res.Score - e)
	}
	v := 1 / invV
	delta := v * sum

	// Step 5: the new volatility, by the Illinois algorithm.
	sigmaNew := p.volatility(phi, sigma, v, delta)

	// Steps 6 and 7: the new deviation and rating.
	phiStar := math.Sqrt(phi*phi + sigmaNew*sigmaNew)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum

	// Step 8: back to the Glicko scale.
	return Rating{
		Rating:     scale*muNew + 1500,
		Deviation:  math.Min(scale*phiNew, p.MaxRD),
		Volatility: sigmaNew,
	}
}

func gOf(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

func (p Params) volatility(phi, sigma, v, delta float64) float64 {
	a := math.Log(sigma * sigma)
	tau2 := p.Tau * p.Tau
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/tau2
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*p.Tau) < 0 {
			k++
		}
		B = a - k*p.Tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > p.Epsilon && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// Game updates both players of one game, each against the other's rating
// before it (one game is one rating period). firstScore is the first
// player's score: 1, 0.5 or 0.
func (p Params) Game(first, second Rating, firstScore float64) (Rating, Rating) {
	return p.Update(first, []Result{{Opponent: second, Score: firstScore}}),
		p.Update(second, []Result{{Opponent: first, Score: 1 - firstScore}})
}
