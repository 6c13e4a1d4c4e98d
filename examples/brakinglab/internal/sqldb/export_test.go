package sqldb

// PostgresDBs counts the databases EngineOf knows as PostgreSQL.
func PostgresDBs() int {
	n := 0
	postgresDBs.Range(func(any, any) bool { n++; return true })
	return n
}
