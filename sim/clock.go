package sim

import "time"

// nodeClock is one node's view of time: a piecewise-linear function of the
// true virtual time. Between changes it reads base + (t-anchor)*(1+drift);
// a skew fault jumps base, a drift fault re-anchors and changes the rate.
// Real clocks do both: NTP steps them and crystals run fast or slow.
type nodeClock struct {
	base   time.Duration // local reading at anchor
	anchor time.Duration // true time of the last change
	drift  float64       // rate error: 0.001 runs 0.1% fast
}

func (c *nodeClock) local(now time.Duration) time.Duration {
	el := now - c.anchor
	if c.drift != 0 {
		el += time.Duration(float64(el) * c.drift)
	}
	return c.base + el
}

// skew jumps the clock by d at true time now.
func (c *nodeClock) skew(now, d time.Duration) {
	c.base = c.local(now) + d
	c.anchor = now
}

// setDrift changes the rate from now on without a jump.
func (c *nodeClock) setDrift(now time.Duration, drift float64) {
	c.base = c.local(now)
	c.anchor = now
	c.drift = drift
}

// reset makes the clock agree with true time again (the liveness phase's
// "clocks resync").
func (c *nodeClock) reset(now time.Duration) {
	c.base, c.anchor, c.drift = now, now, 0
}

// trueDelay converts a duration on the node's clock into true time: a timer
// for d on a clock that runs fast fires earlier in true time. The rate in
// force when the timer is armed is used for its whole wait.
func (c *nodeClock) trueDelay(d time.Duration) time.Duration {
	if c.drift == 0 {
		return d
	}
	t := time.Duration(float64(d) / (1 + c.drift))
	if t < 0 {
		t = 0
	}
	return t
}
