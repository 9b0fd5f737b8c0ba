package group

import (
	"sort"
	"time"
)

// The coordinator's timers (Kafka's per-group and per-member timer keys)
// are deadlines inside its groups. The host arms one kernel timer per
// shard at NextDeadline and calls Expire when it fires, as the broker's
// purgatories do: one timer for many waiters.

// timerKind names what a deadline is for, in the order ties fire.
type timerKind int

const (
	timerJoin      timerKind = iota // the join phase (initial delay or rebalance timeout)
	timerSync                       // members must have sent SyncGroup
	timerPending                    // a KIP-394 member id must come back
	timerHeartbeat                  // a member's session or new-member join timeout
)

// maxFiresPerExpire bounds one Expire: every firing removes a deadline or
// moves it later, so a shard that keeps firing is a coordinator bug.
const maxFiresPerExpire = 1_000_000

// dueTimer is one deadline found by nextTimer.
type dueTimer struct {
	at     time.Duration
	group  *classicGroup
	kind   timerKind
	member string
}

// nextTimer finds the earliest deadline; ties go to the first group by id,
// then the timer kind, then join order (or member id for pending ids).
func (c *Coordinator) nextTimer() (dueTimer, bool) {
	var best dueTimer
	found := false
	consider := func(d deadline, g *classicGroup, kind timerKind, member string) {
		if d.on && (!found || d.at < best.at) {
			best = dueTimer{at: d.at, group: g, kind: kind, member: member}
			found = true
		}
	}
	for _, gid := range c.groupIDs() {
		g := c.groups[gid]
		consider(g.join, g, timerJoin, "")
		consider(g.syncExpiry, g, timerSync, "")
		ids := make([]string, 0, len(g.pending))
		for id := range g.pending {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			consider(*g.pending[id], g, timerPending, id)
		}
		for _, id := range g.order {
			consider(g.members[id].heartbeat, g, timerHeartbeat, id)
		}
	}
	return best, found
}

// NextDeadline is when Expire next has work to do, if ever.
func (c *Coordinator) NextDeadline() (time.Duration, bool) {
	t, ok := c.nextTimer()
	return t.at, ok
}

// Expire fires every deadline due at now, earliest first. Each timer acts
// at its own deadline (but never before the last input the shard saw), so
// that a host that calls late, or a test that jumps ahead, sees what
// timely calls would have done.
func (c *Coordinator) Expire(now time.Duration) Effects {
	floor := c.last
	c.begin(now)
	for fired := 0; ; fired++ {
		if fired > maxFiresPerExpire {
			panic("group: coordinator timers keep firing at " + now.String())
		}
		t, ok := c.nextTimer()
		if !ok || t.at > now {
			break
		}
		c.now = max(t.at, floor)
		g := t.group
		switch t.kind {
		case timerJoin:
			c.joinTimerFired(g)
		case timerSync:
			c.syncExpired(g)
		case timerPending:
			c.pendingExpired(g, t.member)
		case timerHeartbeat:
			c.heartbeatExpired(g, g.members[t.member])
		}
	}
	return c.end()
}
