// Package demo generates BrakingLab's demonstration data and seeds it into
// a store: two drivers, "demo" and "rival", with four weeks of sessions on
// several tracks (laps, sectors, fuel and full telemetry from a lap
// simulator), upcoming race events, a race preparation, notepads and track
// notes.
//
// Generation is deterministic: the same day gives the same data, byte for
// byte. Dates are relative to that day so the calendar always has sessions
// in the past four weeks and races in the weeks ahead. The demo driver
// improves over the weeks and has corner-specific habits the analysis
// finds; most visibly, they brake too late into La Source at Spa.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// RandomSeed is the fixed seed of the generator's random numbers.
const RandomSeed = 20261121

// DefaultPasswords are the development-only passwords of the demo users,
// used when Options.Passwords does not set one. They are printed at start-up
// and must never protect real data.
var DefaultPasswords = map[string]string{"demo": "demo-password", "rival": "rival-password"}

// Usernames of the demo drivers.
const (
	DemoUser  = "demo"
	RivalUser = "rival"
)

// Options configure Generate and SeedStore. A nil *Options is valid.
type Options struct {
	// Now anchors the calendar; zero means time.Now(). Only its UTC day matters.
	Now time.Time
	// Passwords override DefaultPasswords per username.
	Passwords map[string]string
}

// Data is everything the demo puts in the store.
type Data struct {
	Users        []User
	Cars         []store.Car
	Sessions     []store.SessionInput
	RaceEvents   []Owned[store.RaceEvent]
	Preparations []Owned[Preparation]
	Notepads     []Owned[store.Notepad]
	TrackNotes   []Owned[store.TrackNote]
}

// User is a demo account.
type User struct {
	ID, Username, DisplayName string
}

// Owned pairs a record with the ID of the user who owns it.
type Owned[T any] struct {
	UserID string
	Value  T
}

// Preparation is a race preparation: the event it is for and its JSON body.
type Preparation struct {
	RaceEventID string
	Body        json.RawMessage
}

// Login is a demo account's username and development password.
type Login struct {
	Username, Password string
}

// Logins returns the demo accounts with their default development
// passwords, for start-up banners and sign-in pages.
func Logins() []Login {
	return []Login{{DemoUser, DefaultPasswords[DemoUser]}, {RivalUser, DefaultPasswords[RivalUser]}}
}

// Seed inserts the demo data with default options (today's calendar,
// DefaultPasswords) unless it is already there; see SeedStore.
func Seed(ctx context.Context, st *store.Store) error {
	_, err := SeedStore(ctx, st, nil)
	return err
}

// SeedStore inserts the demo data unless the store already has a user
// named "demo", in which case it does nothing: call it on every start.
// Everything is inserted in one transaction, so a failure leaves no trace.
// It reports whether it seeded.
func SeedStore(ctx context.Context, st *store.Store, opts *Options) (bool, error) {
	if opts == nil {
		opts = &Options{}
	}
	seeded := false
	err := st.InTx(ctx, func(tx *store.Store) error {
		if _, err := tx.UserByUsername(ctx, DemoUser); err == nil {
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		d, err := Generate(opts.Now)
		if err != nil {
			return err
		}
		for _, u := range d.Users {
			pw := opts.Passwords[u.Username]
			if pw == "" {
				pw = DefaultPasswords[u.Username]
			}
			if _, err := tx.CreateUser(ctx, u.ID, u.Username, u.DisplayName, pw); err != nil {
				return err
			}
		}
		if err := tx.UpsertCars(ctx, d.Cars); err != nil {
			return err
		}
		if err := tx.InsertSessions(ctx, d.Sessions); err != nil {
			return err
		}
		for _, e := range d.RaceEvents {
			if _, err := tx.CreateRaceEvent(ctx, e.UserID, e.Value); err != nil {
				return err
			}
		}
		for _, p := range d.Preparations {
			if _, err := tx.SaveRacePreparation(ctx, p.UserID, p.Value.RaceEventID, p.Value.Body); err != nil {
				return err
			}
		}
		for _, n := range d.Notepads {
			if _, err := tx.CreateNotepad(ctx, n.UserID, n.Value); err != nil {
				return err
			}
		}
		for _, n := range d.TrackNotes {
			if _, err := tx.AddTrackNote(ctx, n.UserID, n.Value); err != nil {
				return err
			}
		}
		seeded = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("demo: seed: %w", err)
	}
	return seeded, nil
}

// Cars are the cars the demo drivers use.
var Cars = []store.Car{
	{ID: "porsche-911-gt3-r", Name: "Porsche 911 GT3 R", Class: "GT3", FuelTankL: 120},
	{ID: "bmw-m4-gt3", Name: "BMW M4 GT3", Class: "GT3", FuelTankL: 120},
	{ID: "ferrari-296-gt3", Name: "Ferrari 296 GT3", Class: "GT3", FuelTankL: 120},
	{ID: "mazda-mx5-cup", Name: "Mazda MX-5 Cup", Class: "MX-5 Cup", FuelTankL: 45},
}

var simCars = map[string]car{
	"porsche-911-gt3-r": {Pace: 1.000, VmaxKph: 278, FuelPerKmL: 0.44},
	"bmw-m4-gt3":        {Pace: 1.004, VmaxKph: 282, FuelPerKmL: 0.46},
	"ferrari-296-gt3":   {Pace: 0.998, VmaxKph: 280, FuelPerKmL: 0.45},
	"mazda-mx5-cup":     {Pace: 1.27, VmaxKph: 205, FuelPerKmL: 0.19},
}

// habit is a corner-specific mistake a driver makes on some laps.
type habit struct {
	track  string
	corner int
	issue  analysis.Issue
	// prob0 and prob1 are the chances of making it on a lap four weeks ago
	// and today.
	prob0, prob1 float64
}

type driver struct {
	user User
	// skill0 and skill1 scale apex speeds four weeks ago and today.
	skill0, skill1 float64
	habits         []habit
	plan           []outing
}

type outing struct {
	day        int // days before today (negative)
	track, car string
	sim, kind  string
	laps       int
}

func drivers(rng *rand.Rand) []driver {
	demo := driver{
		user:   User{ID: id(rng, "usr"), Username: DemoUser, DisplayName: "Demo Driver"},
		skill0: 0.962, skill1: 0.985,
		habits: []habit{
			{"spa", 0, analysis.LateBraking, 0.85, 0.6},
			{"spa", 3, analysis.TrailBrakeRelease, 0.8, 0.55},
			{"spa", 6, analysis.OverSlowing, 0.7, 0.4},
			{"spa", 11, analysis.PoorExit, 0.7, 0.5},
			{"spa", 9, analysis.Inconsistent, 1, 1},
			{"monza", 0, analysis.LateBraking, 0.7, 0.4},
			{"silverstone", 12, analysis.EarlyBraking, 0.7, 0.5},
			{"suzuka", 5, analysis.PoorExit, 0.7, 0.5},
			{"suzuka", 6, analysis.OverSlowing, 0.6, 0.4},
		},
	}
	for _, d := range []int{-27, -24, -21, -18, -15, -12, -9, -6, -3, -1} {
		kind := "practice"
		switch d {
		case -12:
			kind = "qualifying"
		case -6:
			kind = "race"
		}
		demo.plan = append(demo.plan, outing{d, "spa", "porsche-911-gt3-r", "iRacing", kind, 0})
	}
	demo.plan = append(demo.plan,
		outing{-26, "monza", "porsche-911-gt3-r", "Assetto Corsa Competizione", "practice", 0},
		outing{-19, "monza", "porsche-911-gt3-r", "Assetto Corsa Competizione", "practice", 0},
		outing{-11, "monza", "porsche-911-gt3-r", "Assetto Corsa Competizione", "qualifying", 0},
		outing{-4, "monza", "porsche-911-gt3-r", "Assetto Corsa Competizione", "practice", 0},
		outing{-25, "silverstone", "bmw-m4-gt3", "Assetto Corsa Competizione", "practice", 0},
		outing{-17, "silverstone", "bmw-m4-gt3", "Assetto Corsa Competizione", "practice", 0},
		outing{-8, "silverstone", "bmw-m4-gt3", "Assetto Corsa Competizione", "race", 18},
		outing{-23, "suzuka", "porsche-911-gt3-r", "iRacing", "practice", 0},
		outing{-13, "suzuka", "porsche-911-gt3-r", "iRacing", "practice", 0},
		outing{-5, "suzuka", "porsche-911-gt3-r", "iRacing", "practice", 0},
		outing{-20, "nurburgring-gp", "ferrari-296-gt3", "iRacing", "practice", 0},
		outing{-10, "nurburgring-gp", "ferrari-296-gt3", "iRacing", "practice", 0},
		outing{-22, "laguna-seca", "mazda-mx5-cup", "iRacing", "practice", 0},
		outing{-7, "laguna-seca", "mazda-mx5-cup", "iRacing", "race", 14},
	)
	rival := driver{
		user:   User{ID: id(rng, "usr"), Username: RivalUser, DisplayName: "Rival Driver"},
		skill0: 0.975, skill1: 0.988,
		habits: []habit{
			{"spa", 5, analysis.EarlyBraking, 0.7, 0.5},
			{"spa", 6, analysis.PoorExit, 0.6, 0.5},
			{"monza", 2, analysis.OverSlowing, 0.7, 0.5},
		},
		plan: []outing{
			{-20, "spa", "ferrari-296-gt3", "iRacing", "practice", 0},
			{-13, "spa", "ferrari-296-gt3", "iRacing", "practice", 0},
			{-6, "spa", "ferrari-296-gt3", "iRacing", "race", 0},
			{-2, "spa", "ferrari-296-gt3", "iRacing", "practice", 0},
			{-16, "monza", "ferrari-296-gt3", "Assetto Corsa Competizione", "practice", 0},
			{-9, "monza", "ferrari-296-gt3", "Assetto Corsa Competizione", "practice", 0},
			{-11, "silverstone", "bmw-m4-gt3", "Assetto Corsa Competizione", "practice", 0},
		},
	}
	return []driver{demo, rival}
}

const weeks = 28.0 // days covered by the session history

// Generate builds the demo data for the UTC day of now (time.Now() if
// zero). It is deterministic for a given day.
func Generate(now time.Time) (Data, error) {
	if now.IsZero() {
		now = time.Now()
	}
	today := now.UTC().Truncate(24 * time.Hour)
	rng := rand.New(rand.NewPCG(RandomSeed, RandomSeed>>3))
	ds := drivers(rng)
	d := Data{Cars: Cars}
	scales := map[string]float64{}
	for _, dr := range ds {
		d.Users = append(d.Users, dr.user)
		for _, o := range dr.plan {
			t, _ := tracks.ByID(o.track)
			cr := simCars[o.car]
			key := o.track + "/" + o.car
			if _, ok := scales[key]; !ok {
				scales[key] = calibrate(t, cr)
			}
			s, err := session(rng, dr, o, t, cr, scales[key], today)
			if err != nil {
				return Data{}, err
			}
			d.Sessions = append(d.Sessions, s)
		}
	}
	addCalendar(rng, &d, ds[0].user.ID, ds[1].user.ID, today)
	return d, nil
}

// session simulates one outing lap by lap.
func session(rng *rand.Rand, dr driver, o outing, t tracks.Track, cr car, scale float64, today time.Time) (store.SessionInput, error) {
	progress := (weeks + float64(o.day)) / weeks // 0 four weeks ago, 1 today
	skill := dr.skill0 + (dr.skill1-dr.skill0)*progress
	laps := o.laps
	if laps == 0 {
		laps = 8 + rng.IntN(8)
	}
	s := store.SessionInput{
		ID: id(rng, "ses"), UserID: dr.user.ID, Sim: o.sim, TrackID: t.ID, CarID: o.car, Type: o.kind,
		StartedAt: today.AddDate(0, 0, o.day).Add(18*time.Hour + time.Duration(rng.IntN(150))*time.Minute),
		Weather:   []string{"dry, sunny", "dry, overcast", "dry, cloudy"}[rng.IntN(3)],
	}
	s.TrackTempC = math.Round((18+rng.Float64()*20)*10) / 10
	s.AirTempC = math.Round((s.TrackTempC-6-rng.Float64()*4)*10) / 10
	for n := 1; n <= laps; n++ {
		drive := plainDrive(len(t.Corners))
		for ci := range drive {
			drive[ci].apex = skill * (1 + rng.NormFloat64()*0.005)
			drive[ci].decel = 1 + rng.NormFloat64()*0.02
		}
		for _, h := range dr.habits {
			if h.track != t.ID {
				continue
			}
			cd := &drive[h.corner]
			if h.issue == analysis.Inconsistent {
				cd.apex = skill * (1 + rng.NormFloat64()*0.012)
				cd.decel = 1 + rng.NormFloat64()*0.12
				continue
			}
			if rng.Float64() >= h.prob0+(h.prob1-h.prob0)*progress {
				continue
			}
			sev := 0.5 + rng.Float64()*0.5
			switch h.issue {
			case analysis.LateBraking:
				cd.decel *= 1 + 0.25*sev
				cd.apex *= 1 - 0.08*sev
				cd.exit *= 1 - 0.10*sev
			case analysis.EarlyBraking:
				cd.decel *= 1 - 0.25*sev
			case analysis.OverSlowing:
				cd.apex *= 1 - 0.06*sev
			case analysis.PoorExit:
				cd.exit *= 1 - 0.25*sev
			case analysis.TrailBrakeRelease:
				cd.coastM = 35 * sev
				cd.trail *= 0.5
			}
		}
		tr := simulate(t, cr, scale, drive)
		enc, err := telemetry.Encode(tr)
		if err != nil {
			return store.SessionInput{}, fmt.Errorf("demo: %s lap %d: %w", t.ID, n, err)
		}
		// Times come from the stored (quantised) trace, so a lap's time
		// always equals the time its telemetry adds up to.
		dec, err := telemetry.Decode(enc)
		if err != nil {
			return store.SessionInput{}, err
		}
		sec := analysis.SectorTimes(t, dec)
		lapMs := int(math.Round(dec.LapMs()))
		s1, s2 := int(math.Round(sec[0])), int(math.Round(sec[1]))
		s.Laps = append(s.Laps, store.LapInput{
			Lap: store.Lap{
				Number: n, TimeMs: lapMs, SectorMs: [3]int{s1, s2, lapMs - s1 - s2},
				Valid:     rng.Float64() > 0.07, // track limits
				FuelUsedL: math.Round(t.LengthM/1000*cr.FuelPerKmL*(1+rng.NormFloat64()*0.015)*100) / 100,
			},
			Telemetry: enc,
		})
	}
	return s, nil
}

// id returns a deterministic ID in store.NewID's format.
func id(rng *rand.Rand, prefix string) string {
	return fmt.Sprintf("%s_%016x", prefix, rng.Uint64())
}
