// class 3: a Set returned, and an average of nothing (NaN).
// reply: result.cars is a Set
// reply: [...set]
// reply: result.avgFuel is NaN
const sessions = await brakinglab.getSessions({ trackName: "Spa", type: "race", since: "2030-01-01T00:00:00Z" });
const cars = new Set(sessions.map((s) => s.carName));
const avgFuel = sessions.reduce((a, s) => a + s.lapCount, 0) / sessions.length;
return { cars, avgFuel };
