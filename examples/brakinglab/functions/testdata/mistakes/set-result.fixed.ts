const sessions = await brakinglab.getSessions({ trackName: "Spa", type: "race", since: "2030-01-01T00:00:00Z" });
const cars = new Set(sessions.map((s) => s.carName));
const avgFuel = sessions.length ? sessions.reduce((a, s) => a + s.lapCount, 0) / sessions.length : null;
return { cars: [...cars], avgFuel };
