package codemode

// OpenSessions returns how many Streamable HTTP sessions the endpoints
// the server built hold.
func OpenSessions(s *Server) int {
	s.routersMu.Lock()
	defer s.routersMu.Unlock()
	n := 0
	for _, rt := range s.routers {
		n += rt.Len()
	}
	return n
}
