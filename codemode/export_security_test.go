package codemode

// QueuedExecutions reports how many executions wait for a sandbox worker.
func QueuedExecutions(s *Server) int { return s.sb.Stats().Waiting }
