package checkers

// partMap maps a partition, by its order in analysis.parts, to a T: what
// the order checks' walks keep per partition (where a consumer's last
// operation left it, where a producer's last send landed), looked up and
// set for every operation. With few partitions it is a slice by
// partition, which costs an index where a map costs a hash; with many
// (and many walks, each with its own) a map, so that the slices do not
// grow as partitions times walks.
type partMap[T any] struct {
	dense  []T
	has    []bool
	parts  int // the dense slices' length, once they are made
	sparse map[int32]T
}

// densePartMaps bounds partitions × walks for dense partMaps.
const densePartMaps = 1 << 16

// newPartMap is an empty map over parts partitions, dense or not.
func newPartMap[T any](parts int, dense bool) partMap[T] {
	if dense {
		return partMap[T]{parts: parts}
	}
	return partMap[T]{sparse: map[int32]T{}}
}

func (m *partMap[T]) get(k int32) (T, bool) {
	if m.sparse != nil {
		v, ok := m.sparse[k]
		return v, ok
	}
	if m.has == nil || !m.has[k] {
		var zero T
		return zero, false
	}
	return m.dense[k], true
}

func (m *partMap[T]) put(k int32, v T) {
	if m.sparse != nil {
		m.sparse[k] = v
		return
	}
	if m.has == nil {
		m.dense, m.has = make([]T, m.parts), make([]bool, m.parts)
	}
	m.dense[k], m.has[k] = v, true
}

func (m *partMap[T]) del(k int32) {
	if m.sparse != nil {
		delete(m.sparse, k)
	} else if m.has != nil {
		var zero T
		m.dense[k], m.has[k] = zero, false
	}
}

// keep deletes every partition that ok does not keep.
func (m *partMap[T]) keep(ok func(k int32) bool) {
	if m.sparse != nil {
		for k := range m.sparse {
			if !ok(k) {
				delete(m.sparse, k)
			}
		}
		return
	}
	for k, has := range m.has {
		if has && !ok(int32(k)) {
			m.del(int32(k))
		}
	}
}
