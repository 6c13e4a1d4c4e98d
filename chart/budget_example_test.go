package chart_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/brakinglab/codemode-go/chart"
)

// quick is a renderer that draws nothing, at no cost.
type quick struct{}

func (quick) RenderPNG(*chart.Spec) ([]byte, error) { return []byte("\x89PNG"), nil }

// A server draws one execution's charts within a Budget, each in one of
// the process's Slots, shared fairly between principals.
func ExampleBudget() {
	slots := chart.NewSlots(0) // GOMAXPROCS renderings at once
	budget := chart.NewBudget(chart.ExecutionCPU, chart.RenderCPU)
	spec := &chart.Spec{Series: []chart.Series{{Name: "speed", X: []float64{0, 1}, Y: []float64{180, 200}}}}

	release, err := slots.Acquire(context.Background(), "user-42")
	if err != nil {
		panic(err)
	}
	png, err := budget.Render(quick{}, spec)
	release()
	switch {
	case errors.Is(err, chart.ErrBudgetSpent):
		fmt.Println("not drawn:", err)
	case err != nil:
		fmt.Println("could not be drawn")
	default:
		fmt.Println(len(png), "bytes;", budget.Spent() < chart.RenderCPU)
	}
	// Output: 4 bytes; true
}
