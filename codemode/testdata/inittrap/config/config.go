// Package config is the trap TestWorkerInitTrap sets: a package-level
// variable that needs the host's environment, as many services have.
package config

import (
	"fmt"
	"os"
)

// DatabaseURL must be set in the environment, or the program exits.
var DatabaseURL = mustEnv("INITTRAP_DATABASE_URL")

func mustEnv(name string) string {
	v := os.Getenv(name)
	if v == "" {
		fmt.Fprintf(os.Stderr, "config: %s is not set\n", name)
		os.Exit(1)
	}
	return v
}
