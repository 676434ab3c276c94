package ratelimit

import (
	"fmt"
	"time"
)

// Bucket is a token bucket held in memory, for a rate within one stream
// (the messages a client sends on it): no Redis call per message. It holds
// Rule.Burst tokens and gains Rule.Rate every Rule.Period. It is not safe
// for concurrent use; a stream's receiver owns it. A nil *Bucket, or one
// of a Rule that is Off, allows everything.
type Bucket struct {
	rule   Rule
	tokens float64
	last   time.Time
	now    func() time.Time
}

// NewBucket returns a full bucket of rule; now is its clock (nil:
// time.Now).
func NewBucket(rule Rule, now func() time.Time) *Bucket {
	if rule.Off() {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	return &Bucket{rule: rule, tokens: float64(max(rule.Burst, 1)), last: now(), now: now}
}

// Take takes one token. Without one it returns RESOURCE_EXHAUSTED naming
// the rule and when a token is due.
func (b *Bucket) Take() error {
	if b == nil {
		return nil
	}
	b.refill()
	if b.tokens >= 1 {
		b.tokens--
		return nil
	}
	perToken := b.rule.Period / time.Duration(b.rule.Rate)
	retry := time.Duration((1 - b.tokens) * float64(perToken))
	return Exhausted(fmt.Sprintf("too many %s (%s)", b.rule.What, b.rule.Describe()), retry)
}

// Give gives back a token taken for something that turned out to cost
// nothing worth limiting (up to the burst).
func (b *Bucket) Give() {
	if b == nil {
		return
	}
	b.tokens = min(b.tokens+1, float64(max(b.rule.Burst, 1)))
}

func (b *Bucket) refill() {
	now := b.now()
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.tokens+d.Seconds()*float64(b.rule.Rate)/b.rule.Period.Seconds(), float64(max(b.rule.Burst, 1)))
	}
	b.last = now
}
