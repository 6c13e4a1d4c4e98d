package tracks

// Corner distances are measured from the start/finish line along the racing
// line and rounded to 10 m; apex speeds are typical for a GT3 car. Lengths
// are the official lap lengths.
var all = []Track{
	{
		ID: "spa", Name: "Spa-Francorchamps", Aliases: []string{"Spa", "Circuit de Spa-Francorchamps"},
		Country: "Belgium", LengthM: 7004, SectorEndsM: [2]float64{2100, 5000}, ReferenceLapMs: 137500,
		Corners: corners(
			c("La Source", 390, Right, 65),
			c("Eau Rouge", 1060, Left, 230),
			c("Raidillon", 1200, Right, 235),
			c("Les Combes", 2180, Right, 130),
			c("Malmedy", 2330, Left, 120),
			c("Bruxelles", 2780, Right, 105),
			c("Pouhon", 3520, Left, 180),
			c("Fagnes", 4080, Right, 135),
			c("Campus", 4440, Right, 140),
			c("Stavelot", 4870, Right, 185),
			c("Blanchimont", 5900, Left, 250),
			c("Bus Stop", 6720, Right, 75),
		),
	},
	{
		ID: "monza", Name: "Monza", Aliases: []string{"Autodromo Nazionale Monza"},
		Country: "Italy", LengthM: 5793, SectorEndsM: [2]float64{1950, 4150}, ReferenceLapMs: 107500,
		Corners: corners(
			c("Variante del Rettifilo", 880, Right, 80),
			c("Curva Biassono", 1550, Right, 250),
			c("Variante della Roggia", 2200, Left, 95),
			c("Lesmo 1", 2630, Right, 155),
			c("Lesmo 2", 2880, Right, 150),
			c("Variante Ascari", 3980, Left, 160),
			c("Curva Alboreto", 5150, Right, 170),
		),
	},
	{
		ID: "suzuka", Name: "Suzuka", Aliases: []string{"Suzuka International Racing Course"},
		Country: "Japan", LengthM: 5807, SectorEndsM: [2]float64{2000, 4300}, ReferenceLapMs: 120500,
		Corners: corners(
			c("First Curve", 520, Right, 170),
			c("S Curves", 1000, Left, 150),
			c("Dunlop Curve", 1600, Left, 170),
			c("Degner 1", 2150, Right, 175),
			c("Degner 2", 2320, Right, 110),
			c("Hairpin", 2820, Left, 60),
			c("Spoon Curve", 3850, Left, 130),
			c("130R", 4980, Left, 255),
			c("Casio Triangle", 5430, Right, 65),
		),
	},
	{
		ID: "silverstone", Name: "Silverstone", Aliases: []string{"Silverstone Circuit"},
		Country: "United Kingdom", LengthM: 5891, SectorEndsM: [2]float64{1650, 4200}, ReferenceLapMs: 119000,
		Corners: corners(
			c("Abbey", 300, Right, 220),
			c("Farm", 520, Left, 230),
			c("Village", 800, Right, 95),
			c("The Loop", 930, Left, 75),
			c("Aintree", 1150, Left, 150),
			c("Brooklands", 1950, Left, 100),
			c("Luffield", 2150, Right, 90),
			c("Woodcote", 2450, Right, 200),
			c("Copse", 3050, Right, 210),
			c("Maggotts", 3500, Left, 240),
			c("Becketts", 3750, Right, 150),
			c("Chapel", 3950, Left, 200),
			c("Stowe", 4760, Right, 165),
			c("Vale", 5280, Left, 80),
			c("Club", 5500, Right, 110),
		),
	},
	{
		ID: "nurburgring-gp", Name: "Nürburgring GP", Aliases: []string{"Nurburgring", "Nürburgring"},
		Country: "Germany", LengthM: 5148, SectorEndsM: [2]float64{1700, 3600}, ReferenceLapMs: 114000,
		Corners: corners(
			c("Castrol-S", 400, Right, 85),
			c("Mercedes-Arena", 800, Left, 110),
			c("Valvoline-Kurve", 1300, Right, 120),
			c("Ford-Kurve", 1580, Left, 130),
			c("Dunlop-Kehre", 2050, Right, 70),
			c("Schumacher-S", 2700, Left, 210),
			c("Kumho-Kurve", 3150, Right, 170),
			c("Bit-Kurve", 3580, Left, 115),
			c("Veedol-Schikane", 4600, Left, 90),
			c("Coca-Cola-Kurve", 4950, Right, 100),
		),
	},
	{
		ID: "laguna-seca", Name: "Laguna Seca", Aliases: []string{"WeatherTech Raceway Laguna Seca", "Laguna"},
		Country: "United States", LengthM: 3602, SectorEndsM: [2]float64{1250, 2550}, ReferenceLapMs: 84000,
		Corners: corners(
			c("Andretti Hairpin", 430, Left, 75),
			c("Turn 3", 850, Right, 110),
			c("Turn 4", 1120, Right, 140),
			c("Turn 5", 1650, Left, 105),
			c("Turn 6", 1980, Left, 130),
			c("Corkscrew", 2450, Left, 85),
			c("Rainey Curve", 2700, Left, 140),
			c("Turn 10", 2980, Right, 140),
			c("Turn 11", 3380, Left, 70),
		),
	},
}

func c(name string, apex float64, dir Direction, speed float64) Corner {
	return Corner{Name: name, ApexM: apex, Direction: dir, ApexSpeedKph: speed}
}

func corners(cs ...Corner) []Corner {
	for i := range cs {
		cs[i].Index = i
	}
	return cs
}
