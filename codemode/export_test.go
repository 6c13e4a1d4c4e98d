package codemode

// InFlightCalls returns how many calls the stateless endpoint's
// cancellation registry holds.
func InFlightCalls(s *Server) int { return s.cancels.Len() }

// CancelledCalls returns how many calls notifications/cancelled POSTs have
// cancelled on the stateless endpoint.
func CancelledCalls(s *Server) int64 { return s.cancels.Cancelled() }
