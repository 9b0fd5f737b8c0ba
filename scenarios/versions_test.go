package scenarios

import "testing"

// TestConfigForAppliesKafkaVersionOnceBeforeTheOtherSettings: -set
// kafka.version moves what the scenario left at its defaults, keeps what
// the scenario set (kip966-last-replica's ELR off, replica.lag.time.max.ms
// 10 s), and loses to a -set given beside it in either order.
func TestConfigForAppliesKafkaVersionOnceBeforeTheOtherSettings(t *testing.T) {
	base, _ := Find("baseline")
	kip966, _ := Find("kip966-last-replica")
	for _, tc := range []struct {
		sc   Scenario
		set  []string
		want map[string]string
	}{
		{base, []string{"kafka.version=3.6"}, map[string]string{"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "false", "linger.ms": "0s", "min.insync.replicas": "2"}},
		{base, []string{"linger.ms=2ms", "kafka.version=3.7"}, map[string]string{"high.watermark.freeze.below.min.isr": "true", "linger.ms": "2ms", "kafka.version": "3.7"}},
		{kip966, []string{"kafka.version=4.1"}, map[string]string{"eligible.leader.replicas.enable": "false", "replica.lag.time.max.ms": "10s"}},
		{kip966, []string{"kafka.version=3.6"}, map[string]string{"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "false", "replica.lag.time.max.ms": "10s"}},
	} {
		kc, err := ConfigFor(tc.sc, tc.set)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.sc.Name, tc.set, err)
		}
		for name, w := range tc.want {
			if got := kc.Get(name); got != w {
				t.Errorf("%s %v: %s = %s, want %s", tc.sc.Name, tc.set, name, got, w)
			}
		}
	}
	if _, err := ConfigFor(base, []string{"kafka.version=5.0"}); err == nil {
		t.Error("kafka.version=5.0 accepted")
	}
}
