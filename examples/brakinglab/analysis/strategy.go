package analysis

import (
	"errors"
	"fmt"
	"math"
)

// ErrInfeasible wraps every reason PlanStrategy refuses a race.
var ErrInfeasible = errors.New("infeasible strategy")

// MaxStops is the most pit stops PlanStrategy will plan.
const MaxStops = 10

// StrategyInput describes the race and the driver's pace and consumption.
type StrategyInput struct {
	// Exactly one of RaceLaps and RaceDurationMs is set. For a timed race
	// the driver completes the lap in progress when time runs out.
	RaceLaps       int
	RaceDurationMs float64
	// LapMs and FuelPerLapL come from the driver's own laps.
	LapMs, FuelPerLapL float64
	// TankL is the usable fuel capacity.
	TankL float64
	// MaxStintLaps caps a stint (tyres, driver limits); 0 means no cap.
	MaxStintLaps int
	// MandatoryStops is the minimum number of stops the rules require.
	MandatoryStops int
	// PitLossMs is the time one stop costs compared with staying out.
	PitLossMs float64
	// ReserveLaps of fuel are kept in the tank at the end of each stint.
	ReserveLaps float64
}

// Stint is one run between stops. Laps are numbered from 1.
type Stint struct {
	Number, StartLap, EndLap, Laps int
	// FuelL is the fuel to start the stint with (its laps plus the reserve).
	FuelL float64
}

// Strategy is a fuel and stop plan.
type Strategy struct {
	TotalLaps int
	// TotalFuelL is the fuel burnt over the race.
	TotalFuelL float64
	// MaxStintLaps is the most laps one tank (or the stint cap) allows.
	MaxStintLaps int
	Stops        int
	// PitLaps are the laps at the end of which the car stops.
	PitLaps []int
	Stints  []Stint
	// EstimatedMs is race time at LapMs pace plus the stops.
	EstimatedMs float64
}

// PlanStrategy splits the race into the fewest equal stints that the tank
// and the stint cap allow (at least MandatoryStops+1), longer stints first.
// It refuses, wrapping ErrInfeasible with a reason, when the inputs cannot
// make a race: no pace or consumption, a tank that cannot do one lap plus
// the reserve, or more than MaxStops stops.
func PlanStrategy(in StrategyInput) (Strategy, error) {
	switch {
	case in.LapMs <= 0 || in.FuelPerLapL <= 0:
		return Strategy{}, fmt.Errorf("%w: no lap time or fuel consumption to plan from", ErrInfeasible)
	case (in.RaceLaps > 0) == (in.RaceDurationMs > 0):
		return Strategy{}, fmt.Errorf("%w: give either a number of laps or a duration", ErrInfeasible)
	case in.TankL <= 0:
		return Strategy{}, fmt.Errorf("%w: tank capacity must be positive", ErrInfeasible)
	case in.MandatoryStops < 0 || in.MaxStintLaps < 0 || in.ReserveLaps < 0 || in.PitLossMs < 0:
		return Strategy{}, fmt.Errorf("%w: stops, stint cap, reserve and pit loss cannot be negative", ErrInfeasible)
	}
	perTank := int(math.Floor(in.TankL/in.FuelPerLapL - in.ReserveLaps + 1e-9))
	if perTank < 1 {
		return Strategy{}, fmt.Errorf("%w: a %.1f L tank does not cover one lap at %.2f L/lap plus %.1f reserve laps",
			ErrInfeasible, in.TankL, in.FuelPerLapL, in.ReserveLaps)
	}
	maxStint := perTank
	if in.MaxStintLaps > 0 && in.MaxStintLaps < maxStint {
		maxStint = in.MaxStintLaps
	}
	total := in.RaceLaps
	stints := 0
	for range 3 { // a timed race's lap count depends on the stops, which depend on the laps
		if in.RaceDurationMs > 0 {
			stops := max(stints-1, 0)
			total = int(math.Floor((in.RaceDurationMs-float64(stops)*in.PitLossMs)/in.LapMs)) + 1
			total = max(total, 1)
		}
		stints = max((total+maxStint-1)/maxStint, in.MandatoryStops+1)
	}
	if stints > total {
		return Strategy{}, fmt.Errorf("%w: %d mandatory stops do not fit in a %d-lap race", ErrInfeasible, in.MandatoryStops, total)
	}
	if stints-1 > MaxStops {
		return Strategy{}, fmt.Errorf("%w: the race needs %d stops (%d laps, %d laps per stint); more than %d is not a usable plan",
			ErrInfeasible, stints-1, total, maxStint, MaxStops)
	}
	s := Strategy{TotalLaps: total, MaxStintLaps: maxStint, Stops: stints - 1,
		TotalFuelL: round1(float64(total) * in.FuelPerLapL)}
	lap := 1
	for i := 0; i < stints; i++ {
		n := total / stints
		if i < total%stints {
			n++
		}
		fuel := math.Min(in.TankL, (float64(n)+in.ReserveLaps)*in.FuelPerLapL)
		s.Stints = append(s.Stints, Stint{Number: i + 1, StartLap: lap, EndLap: lap + n - 1, Laps: n, FuelL: round1(fuel)})
		if i < stints-1 {
			s.PitLaps = append(s.PitLaps, lap+n-1)
		}
		lap += n
	}
	s.EstimatedMs = float64(total)*in.LapMs + float64(s.Stops)*in.PitLossMs
	return s, nil
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
