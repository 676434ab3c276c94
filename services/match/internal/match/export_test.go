package match

import "tabuleiro.dev/pkg/engine"

// CachedForTest returns what the instance holds for id without reading the
// store (nil when nothing is cached).
func (s *Service) CachedForTest(id string) (*State, engine.Position, bool) {
	s.mu.Lock()
	e := s.cache[id]
	s.mu.Unlock()
	if e == nil {
		return nil, nil, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil {
		return nil, e.pos, true
	}
	return e.st.clone(), e.pos, true
}

// CacheLenForTest is the number of matches the instance caches.
func (s *Service) CacheLenForTest() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.cache)
}

// EvictIdleForTest drops the cached matches unused since before (unix ms).
func (s *Service) EvictIdleForTest(before int64) { s.evictIdle(before) }
