package match

import "testing"

func TestLagGain(t *testing.T) {
	for _, c := range []struct {
		tc   TimeControl
		want int64
	}{
		{TimeControl{BaseMS: 10_000}, 190},                      // 10 s: 150 + 4×10
		{TimeControl{BaseMS: 60_000}, 390},                      // 1+0: lichess's 39 cs
		{TimeControl{BaseMS: 180_000, IncrementMS: 2000}, 1000}, // 3+2: 260 s, capped at 1 s
		{TimeControl{BaseMS: 5 * 60_000, IncrementMS: 3000}, 1000},
	} {
		if got := LagGainMS(&c.tc); got != c.want {
			t.Errorf("gain of %+v = %d ms, want %d", c.tc, got, c.want)
		}
	}
	if LagGainMS(nil) != 0 {
		t.Error("a game without a clock has a lag gain")
	}
}

// TestLagQuotaAccounting: the credit is the least of the one-way lag, the
// quota and the think time; the quota grows by the gain with each ply,
// less the credit, and never beyond 7 gains.
func TestLagQuotaAccounting(t *testing.T) {
	const gain = 390
	quota := int64(LagQuotaStart * gain)
	steps := []struct {
		oneWay, think, credit, quota int64
	}{
		{100, 1000, 100, 1170 + 390 - 100},    // the lag, within the quota
		{5000, 8000, 1460, 390},               // a huge lag: the whole quota, no more
		{5000, 8000, 390, 390},                // then only the gain per ply
		{300, 200, 200, 390 + 390 - 200},      // never more than the think time
		{0, 1000, 0, 580 + 390},               // no estimate: no credit
		{0, 1000, 0, 1360},                    // the quota refills…
		{0, 1000, 0, 1750},                    //
		{0, 1000, 0, 2140},                    //
		{0, 1000, 0, 2530},                    //
		{0, 1000, 0, LagQuotaMax * gain},      // …up to 7 gains
		{0, 1000, 0, LagQuotaMax * gain},      //
		{9000, 9000, LagQuotaMax * gain, 390}, // the most one ply can get
	}
	for i, s := range steps {
		credit := lagCredit(s.oneWay, quota, s.think)
		quota = nextQuota(quota, credit, gain)
		if credit != s.credit || quota != s.quota {
			t.Fatalf("ply %d (lag %d, think %d): credit %d and quota %d, want %d and %d", i+1, s.oneWay, s.think, credit, quota, s.credit, s.quota)
		}
	}
}

// TestLagEstimate: the first sample sets the round trip, later ones move
// it by a quarter; a sample is capped, and the one-way lag is half.
func TestLagEstimate(t *testing.T) {
	var l Lag
	l = l.With(200)
	if l.RTTMS != 200 || l.OneWayMS() != 100 {
		t.Fatalf("after one sample: %+v", l)
	}
	l = l.With(600)
	if l.RTTMS != 300 || l.Samples != 2 {
		t.Fatalf("after 200, 600: %+v, want 300", l)
	}
	if l = (Lag{}).With(1 << 40); l.RTTMS != maxRTTSample {
		t.Fatalf("a huge sample: %+v, want the cap %d", l, maxRTTSample)
	}
	if l = (Lag{}).With(-5); l.RTTMS != 0 {
		t.Fatalf("a negative sample: %+v, want 0", l)
	}
}
