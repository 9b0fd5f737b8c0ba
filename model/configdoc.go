package model

import (
	"reflect"
	"strings"
)

// SettingDoc describes one configuration setting for people and tools:
// `kafkasim config` prints these. Name is Kafka's (case-sensitive, as in
// Kafka), Group the part of the cluster that reads it, Default Kafka's
// default (DefaultConfig) in the form Set accepts, Unit how the value is
// written, KafkasimOnly marks kafkasim's own switches that Kafka has no
// setting for.
type SettingDoc struct {
	Name         string `json:"name"`
	Group        string `json:"group"`
	Default      string `json:"kafka_default"`
	Unit         string `json:"unit"`
	KafkasimOnly bool   `json:"kafkasim_only"`
	Description  string `json:"description"`
	// Releases says how the setting's default differs between the Kafka
	// releases kafka.version selects, and where that is written down;
	// empty when kafka.version leaves it alone.
	Releases string `json:"releases,omitempty"`
}

// settingText is the hand-written part of a SettingDoc: what a setting
// does (the field's doc comment in config.go, shortened) and, for an
// integer, what it counts; the rest is read from the Config type.
type settingText struct {
	unit, what string
	own        bool
}

// settingTexts documents every name in configNames; a test keeps the two
// in step.
var settingTexts = map[string]settingText{
	"default.replication.factor":                    {unit: "replicas", what: "Replication factor of topics created without one (the scenarios use 3)."},
	"replica.lag.time.max.ms":                       {what: "How long a follower may fail to catch up to the leader's log end before the leader drops it from the ISR."},
	"replica.fetch.wait.max.ms":                     {what: "How long a leader holds a follower's fetch when there is nothing new to return."},
	"replica.fetch.max.bytes":                       {unit: "bytes", what: "Bytes a follower asks for per partition in one fetch."},
	"replica.fetch.min.bytes":                       {unit: "bytes", what: "Bytes a follower's fetch waits for before the leader answers."},
	"replica.fetch.backoff.ms":                      {what: "Pause after a failed follower fetch."},
	"network.tcp":                                   {own: true, what: "The TCP-faithful network: a cut is silent and what is sent into it is retransmitted with Linux's backoff (200 ms doubling to 120 s, 15 tries); power losses and pauses announce nothing. On by default; false is the announcing network (a cut or power loss resets the connection at once, what is sent into a cut is lost), a kafkasim extension kept for comparison."},
	"controlled.shutdown.enable":                    {what: "A clean stop first asks the controller to move the broker's leaderships and serves on until it is let go (at most 5 minutes); false stops at once and leaves the controller to notice at the session timeout."},
	"reconnect.backoff.ms":                          {what: "A client's first wait before reconnecting to a broker; it doubles on each failure, with 20% jitter."},
	"reconnect.backoff.max.ms":                      {what: "The cap of a client's reconnect backoff."},
	"max.incremental.fetch.session.cache.slots":     {unit: "sessions", what: "Fetch sessions (KIP-227) a broker keeps; a fetcher in one sends only the partitions that changed and gets back only those with news. 0 turns sessions off: every fetch names every partition."},
	"replica.socket.timeout.ms":                     {what: "A follower's fetch timeout on a connection the leader has not yet answered on; at least replica.fetch.wait.max.ms."},
	"socket.connection.setup.timeout.ms":            {what: "How long a client waits for a connection to be set up before it gives up; it doubles on each failure."},
	"socket.connection.setup.timeout.max.ms":        {what: "The cap of the connection set-up timeout."},
	"replica.high.watermark.checkpoint.interval.ms": {what: "How often a broker writes its high watermarks to disk; before KIP-101 a restarting follower truncated to this checkpoint."},
	"log.flush.interval.messages":                   {unit: "messages", what: "Appended messages that force an fsync; Kafka's default never fsyncs on count and leaves durability to replication."},
	"log.flush.interval.ms":                         {what: "How long a message may stay unflushed (never: Kafka's unset default)."},
	"log.segment.bytes":                             {unit: "bytes", what: "Size at which a partition log rolls to a new segment file."},
	"producer.id.expiration.ms":                     {what: "How long a partition remembers an idempotent producer after its last batch; after it, a retry is no longer recognised as a duplicate."},
	"producer.id.expiration.check.interval.ms":      {what: "How often a broker looks for expired producers in each partition it hosts."},
	"truncation":                                    {own: true, what: "How a follower finds where its log diverges from the leader's: leader-epoch (KIP-101 with KIP-279, today's), leader-epoch-kip101 (KIP-101 alone) or high-watermark (before KIP-101)."},
	"high.watermark.freeze.below.min.isr":           {own: true, what: "While a partition's ISR is below min.insync.replicas the leader does not advance the high watermark (KAFKA-15583, Kafka 3.7+); false is Kafka 3.6, which commits over whatever ISR is left. ELR requires it."},
	"stray.replica.check.at.load":                   {own: true, what: "A broker opening a log checks that its folder was created for the topic the metadata names now (KAFKA-14616, Kafka 3.7+) and deletes a stray one; false is Kafka 3.6, which fails that replica with INCONSISTENT_TOPIC_ID, so it never rejoins the ISR."},
	"kafka.version":                                 {own: true, what: "The Kafka release whose defaults and behaviours the run follows where releases differ; it moves each setting listed with release notes here, unless that setting is given another value (a scenario's or -set's value wins)."},
	"producer.snapshot.last.batch.only":             {own: true, what: "Producer-state snapshots keep only each producer's newest batch, as Kafka's format does, so a reload forgets older in-flight batches; false keeps the five the live state retains."},
	"min.insync.replicas":                           {unit: "replicas", what: "ISR size an acks=all write needs; below it the leader answers NOT_ENOUGH_REPLICAS and (KIP-966) the high watermark stops."},
	"unclean.leader.election.enable":                {what: "Lets the controller elect a replica outside the ISR when no ISR member is alive: availability at the price of acknowledged writes."},
	"retention.ms":                                  {what: "How long a log keeps a closed segment."},
	"retention.bytes":                               {unit: "bytes", what: "Bound on a partition log's size; -1 means no bound."},
	"broker.heartbeat.interval.ms":                  {what: "How often a broker heartbeats the controller."},
	"broker.session.timeout.ms":                     {what: "How long the controller waits for a heartbeat before fencing the broker, which removes it from every ISR."},
	"eligible.leader.replicas.enable":               {own: true, what: "KIP-966's eligible leader replicas (in Kafka the feature eligible.leader.replicas.version): replicas leaving the ISR below min.insync.replicas stay electable; false brings back the KIP-966 bug."},
	"auto.leader.rebalance.enable":                  {what: "The active controller moves each partition's leadership back to its preferred replica (the first of its assignment) when that replica is in the ISR and unfenced, checking leader.imbalance.check.interval.seconds after a partition's leader stops being it (KRaft's controller has no per-broker threshold: leader.imbalance.per.broker.percentage is the ZooKeeper controller's)."},
	"leader.imbalance.check.interval.seconds":       {unit: "seconds", what: "How long after leadership leaves a preferred replica the controller checks again and elects the preferred replicas that can lead; it checks again after the same interval while any partition is still led by another replica."},
	"group.initial.rebalance.delay.ms":              {what: "How long the coordinator waits for more members before completing the first rebalance of an empty group."},
	"group.min.session.timeout.ms":                  {what: "Smallest session.timeout.ms a member may ask for; below it JoinGroup fails with INVALID_SESSION_TIMEOUT."},
	"group.max.session.timeout.ms":                  {what: "Largest session.timeout.ms a member may ask for; above it JoinGroup fails with INVALID_SESSION_TIMEOUT."},
	"offsets.topic.num.partitions":                  {unit: "partitions", what: "Partition count of __consumer_offsets; a group's coordinator leads partition hash(group) mod it."},
	"offsets.topic.replication.factor":              {unit: "replicas", what: "Replication factor of __consumer_offsets."},
	"offsets.commit.timeout.ms":                     {what: "How long the coordinator waits for an offset commit or a group's assignment to commit in __consumer_offsets before answering with an error."},
	"acks":                                          {what: "Replicas that must have a write before it is acknowledged: 0 (none), 1 (the leader) or all (the ISR, at least min.insync.replicas of it)."},
	"enable.idempotence":                            {what: "Gives each write a producer id and sequence so that retries are not duplicated (KIP-98); needs acks=all."},
	"max.in.flight.requests.per.connection":         {unit: "requests", what: "Unanswered produce requests per broker connection; above 1 without idempotence, retries can reorder writes."},
	"retries":                                       {unit: "retries", what: "Resends of a failed batch; delivery.timeout.ms is the bound that normally ends them."},
	"linger.ms":                                     {what: "How long a batch waits for more records before it is sent (5 ms since Kafka 4.0, KIP-1030)."},
	"batch.size":                                    {unit: "bytes", what: "Bytes a batch may reach before it is sent."},
	"delivery.timeout.ms":                           {what: "Bound on the time from send() to its outcome, retries included; after it the write is reported failed, though it may have been appended."},
	"transaction.timeout.ms":                        {what: "How long the transaction coordinator lets a transactional producer's transaction stay open before it fences the producer and aborts it; sent with InitProducerId, used only by producers with a transactional.id."},
	"session.timeout.ms":                            {what: "How long the coordinator waits for a member's heartbeat before removing it and rebalancing."},
	"heartbeat.interval.ms":                         {what: "How often a group member heartbeats its coordinator."},
	"max.poll.interval.ms":                          {what: "Bound on the time between polls, and the rebalance timeout a member sends with JoinGroup."},
	"max.poll.records":                              {unit: "records", what: "Records one poll returns at most."},
	"auto.offset.reset":                             {what: "Where a consumer without a committed offset starts: earliest, latest or none (fail)."},
	"enable.auto.commit":                            {what: "Commits the positions of the previous poll periodically."},
	"auto.commit.interval.ms":                       {what: "Period of auto-commit."},
	"fetch.max.wait.ms":                             {what: "How long the leader holds a consumer's fetch when fewer than fetch.min.bytes are available."},
	"fetch.min.bytes":                               {unit: "bytes", what: "Bytes a consumer's fetch waits for."},
	"partition.assignment.strategy":                 {what: "The group's partition assignor (kafkasim runs one per group): range, roundrobin, sticky or cooperative-sticky."},
	"isolation.level":                               {what: "read_uncommitted reads up to the high watermark; read_committed reads up to the last stable offset and drops the records of aborted transactions (KIP-98)."},
	"consumer.self.fencing":                         {own: true, what: "A kafkasim extension, off by default as in Kafka: true makes a member cut off from its coordinator for session.timeout.ms stop fetching its partitions; false is what both of Kafka's consumers (classic and KIP-848) do, keep fetching until the coordinator answers (the zombie consumer)."},
	"request.timeout.ms":                            {what: "How long a client waits for a response before giving up on the request (a write's fate is then unknown); it then closes the connection, and a follower's fetch on an answered connection times out after it too."},
	"retry.backoff.ms":                              {what: "First pause before a client retry; it grows exponentially up to retry.backoff.max.ms (KIP-580)."},
	"retry.backoff.max.ms":                          {what: "Largest pause between client retries."},
	"metadata.max.age.ms":                           {what: "How often a client refreshes metadata even without an error that calls for it."},
	"transaction.state.log.num.partitions":          {unit: "partitions", what: "Partition count of __transaction_state, created when a transactional producer first looks for its coordinator; a transactional id's coordinator leads partition hash(id) mod it."},
	"transaction.state.log.replication.factor":      {unit: "replicas", what: "Replication factor of __transaction_state."},
	"transaction.state.log.min.isr":                 {unit: "replicas", what: "The min.insync.replicas __transaction_state is created with; the coordinator's writes need it."},
	"transaction.max.timeout.ms":                    {what: "Largest transaction.timeout.ms a producer may ask for; above it InitProducerId fails with INVALID_TRANSACTION_TIMEOUT."},
	"transactional.id.expiration.ms":                {what: "How long the coordinator keeps a transactional id with no transaction in flight and no update."},
	"transaction.abort.timed.out.transaction.cleanup.interval.ms": {what: "How often the coordinator looks for transactions past their timeout and aborts them."},
	"transaction.remove.expired.transaction.cleanup.interval.ms":  {what: "How often the coordinator looks for expired transactional ids."},
	"transaction.version":                       {unit: "feature level", what: "The transaction.version feature level (KIP-890): 0 as in 3.x; 1 writes flexible transaction-state records; 2 bumps the producer epoch at every transaction end and answers it in EndTxn (part 2), so that a late request of an ended transaction is fenced."},
	"transaction.partition.verification.enable": {what: "KIP-890 part 1: a partition leader asks the transaction coordinator whether a transactional produce's partition is in the producer's ongoing transaction before appending the transaction's first batch there; false lets a late produce open a transaction the coordinator does not know (a hanging transaction)."},
}

// SettingDocs describes every setting, sorted by name.
func SettingDocs() []SettingDoc {
	def := DefaultConfig()
	top := reflect.TypeFor[Config]()
	out := make([]SettingDoc, 0, len(configNames))
	for _, name := range configNames {
		f := configFields[name]
		field := top.Field(f.index[0]).Type.Field(f.index[1])
		text := settingTexts[name]
		out = append(out, SettingDoc{
			Name:         name,
			Group:        strings.ToLower(top.Field(f.index[0]).Name),
			Default:      def.Get(name),
			Unit:         settingUnit(field.Type, text.unit),
			KafkasimOnly: text.own,
			Description:  text.what,
			Releases:     ReleaseNotes(name),
		})
	}
	return out
}

// settingUnit says how a value of type t is written: a duration in Go's
// syntax or as Kafka's milliseconds, a boolean, one of an enumeration's
// words, or an integer of what the setting counts.
func settingUnit(t reflect.Type, counts string) string {
	switch {
	case t == durationType:
		return "duration (30s, 500ms, milliseconds as an integer, or never)"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t == reflect.TypeFor[Acks]():
		return "all, 1 or 0"
	case t == reflect.TypeFor[TruncationMode]():
		return strings.Join([]string{string(TruncateLeaderEpoch), string(TruncateLeaderEpochKIP101), string(TruncateHighWatermark)}, ", ")
	case t == reflect.TypeFor[OffsetReset]():
		return strings.Join([]string{string(ResetEarliest), string(ResetLatest), string(ResetNone)}, ", ")
	case t == reflect.TypeFor[KafkaVersion]():
		return kafkaVersionList()
	case t == reflect.TypeFor[IsolationLevel]():
		return "read_uncommitted, read_committed"
	case t == reflect.TypeFor[Assignor]():
		return strings.Join([]string{string(AssignRange), string(AssignRoundRobin), string(AssignSticky), string(AssignCooperativeSticky)}, ", ")
	}
	return "integer (" + counts + ")"
}
