package codemode

// Version is the version of the codemode-go module, as in CHANGELOG.md.
// It follows semantic versioning; before 1.0.0 a minor version may break
// the API, and CHANGELOG.md says how.
const Version = "0.1.0"
