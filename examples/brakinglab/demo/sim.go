package demo

import (
	"math"

	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// The lap simulator: a point-mass model driven by the track's corner list.
// Corners cap the speed around their apex; a backward pass applies braking
// and a forward pass applies traction-limited acceleration, so speeds,
// pedals and lap time all come from one consistent profile.

const (
	stepM         = 10.0 // telemetry resolution
	baseDecel     = 14.0 // m/s², peak braking of a GT3 car (before calibration)
	baseAccel     = 8.0  // m/s², traction-limited launch acceleration
	brakeFullDecl = baseDecel * 1.15
	coastDecel    = 1.5 // m/s² below which the driver is off the brake
)

// car is a car's performance as the simulator sees it.
type car struct {
	ID, Name, Class string
	TankL           float64
	// Pace multiplies lap time relative to the track's GT3 reference.
	Pace       float64
	VmaxKph    float64
	FuelPerKmL float64
}

// cornerDrive is how a driver takes one corner on one lap.
type cornerDrive struct {
	apex   float64 // multiplies the apex speed
	decel  float64 // multiplies braking deceleration into the corner
	exit   float64 // multiplies acceleration for 200 m after the apex
	coastM float64 // metres before the turn-in where the driver is off the brake too early
	trail  float64 // multiplies the length of the trail-braking taper
}

func plainDrive(n int) []cornerDrive {
	d := make([]cornerDrive, n)
	for i := range d {
		d[i] = cornerDrive{apex: 1, decel: 1, exit: 1, trail: 1}
	}
	return d
}

// halfWidth is half the length of the constant-speed arc around an apex.
func halfWidth(c tracks.Corner) float64 { return 10 + c.ApexSpeedKph/5 }

// simulate returns one lap's telemetry. scale (from calibrate) multiplies
// every speed so the ideal lap matches the car's reference time.
func simulate(t tracks.Track, cr car, scale float64, drive []cornerDrive) telemetry.Trace {
	tr := telemetry.Make(t.LengthM, stepM)
	n := tr.Len()
	vmax := cr.VmaxKph / 3.6 * scale
	accel := baseAccel * scale * scale
	decel := baseDecel * scale * scale

	// next[i] is the corner whose apex comes next after segment i (cyclic).
	next := make([]int, n)
	cap := make([]float64, n)
	for i := 0; i < n; i++ {
		m := tr.MidM(i)
		next[i] = 0
		for ci := len(t.Corners) - 1; ci >= 0; ci-- {
			if t.Corners[ci].ApexM-halfWidth(t.Corners[ci]) >= m {
				next[i] = ci
			}
		}
		cap[i] = vmax
		for ci, c := range t.Corners {
			if math.Abs(m-c.ApexM) <= halfWidth(c) {
				cap[i] = math.Min(cap[i], c.ApexSpeedKph/3.6*scale*drive[ci].apex)
			}
		}
	}
	// distance from segment i to the turn-in of its next corner.
	toTurnIn := func(i int) float64 {
		c := t.Corners[next[i]]
		d := c.ApexM - halfWidth(c) - tr.MidM(i)
		if d < 0 {
			d += t.LengthM
		}
		return d
	}
	brakeDecel := func(i int) float64 {
		c := t.Corners[next[i]]
		dr := drive[next[i]]
		d := toTurnIn(i)
		if d < dr.coastM {
			return coastDecel * 0.5
		}
		taper := (25 + c.ApexSpeedKph*0.25) * dr.trail
		f := 1.0
		if d-dr.coastM < taper {
			f = 0.3 + 0.7*(d-dr.coastM)/taper
		}
		return decel * dr.decel * f
	}
	exitFactor := func(i int) float64 {
		m := tr.MidM(i)
		for ci, c := range t.Corners {
			if m > c.ApexM && m-c.ApexM < 200 {
				return drive[ci].exit
			}
		}
		return 1
	}

	vb := append([]float64(nil), cap...)
	for k := 2*n - 1; k >= 0; k-- {
		i, j := k%n, (k+1)%n
		vb[i] = math.Min(vb[i], math.Sqrt(vb[j]*vb[j]+2*brakeDecel(i)*tr.SegmentLenM(i)))
	}
	v := append([]float64(nil), vb...)
	for k := 0; k < 2*n; k++ {
		i, j := k%n, (k+1)%n
		a := accel * (1 - (v[i]/vmax)*(v[i]/vmax)) * exitFactor(i)
		v[j] = math.Min(vb[j], math.Sqrt(v[i]*v[i]+2*math.Max(a, 0)*tr.SegmentLenM(i)))
	}

	for i := 0; i < n; i++ {
		j := (i + 1) % n
		tr.SpeedKph[i] = v[i] * 3.6
		ds := tr.SegmentLenM(i)
		dv2 := v[j]*v[j] - v[i]*v[i]
		switch {
		case dv2 < 0 && -dv2/(2*ds) > coastDecel:
			tr.Brake[i] = math.Min(1, -dv2/(2*ds)/(brakeFullDecl*scale*scale))
		case dv2 > 1e-6:
			avail := accel * (1 - (v[i]/vmax)*(v[i]/vmax))
			tr.Throttle[i] = math.Min(1, math.Max(0.2, dv2/(2*ds)/avail))
		case dv2 < 0:
			tr.Throttle[i] = 0 // coasting
		case v[i] >= vmax*0.999:
			tr.Throttle[i] = 1
		default:
			tr.Throttle[i] = 0.35 // holding the apex speed
		}
		tr.Gear[i] = gear(tr.SpeedKph[i], cr.VmaxKph)
		m := tr.MidM(i)
		for _, c := range t.Corners {
			sigma := halfWidth(c) + 30
			if math.Abs(m-c.ApexM) > 4*sigma {
				continue
			}
			amp := math.Min(0.9, math.Max(0.08, 80/c.ApexSpeedKph))
			s := amp * math.Exp(-math.Pow((m-c.ApexM)/sigma, 2))
			if c.Direction == tracks.Left {
				s = -s
			}
			tr.Steering[i] += s
		}
		tr.Steering[i] = math.Max(-1, math.Min(1, tr.Steering[i]))
	}
	return tr
}

// gear picks a gear from speed, spacing six gears up to top speed.
func gear(kph, vmaxKph float64) int {
	g := 1 + int(kph/(vmaxKph/6.2))
	return min(g, 6)
}

// calibrate returns the speed scale at which a flawless driver in car cr
// laps track t in the track's reference time times the car's pace.
func calibrate(t tracks.Track, cr car) float64 {
	ideal := simulate(t, cr, 1, plainDrive(len(t.Corners)))
	target := float64(t.ReferenceLapMs) * cr.Pace
	return ideal.LapMs() / target
}
