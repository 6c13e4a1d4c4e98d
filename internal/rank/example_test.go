package rank_test

import (
	"fmt"

	"github.com/brakinglab/codemode-go/internal/rank"
)

// Fields weigh what they say: a name and a summary most, fully normalised
// by their length (B: 1), so the function whose name and summary say
// exactly the query comes first, and "requests" meets "pulls" and
// "pull request" through the stemmer.
func ExampleIndex_Search() {
	fields := func(name, summary, doc string) []rank.Field {
		return []rank.Field{
			{Text: name, Weight: 4, B: 1},
			{Text: summary, Weight: 3, B: 1},
			{Text: doc},
		}
	}
	ix := rank.New([]rank.Doc{
		{ID: "pull_request_stacks_list", Fields: fields("pull_request_stacks_list", "List pull request stacks", "Lists pull request stacks in a repository.")},
		{ID: "pulls_list", Fields: fields("pulls_list", "List pull requests", "Lists pull requests in a specified repository.")},
		{ID: "issues_create", Fields: fields("issues_create", "Create an issue", "Any user with pull access to a repository can create an issue.")},
	})
	for _, h := range ix.Search("list the pull requests of a repository", 5, nil) {
		fmt.Println(h.ID)
	}
	// Output:
	// pulls_list
	// pull_request_stacks_list
	// issues_create
}
