const sessions = await brakinglab.getSessions({ limit: 15 });
const laps = await Promise.all(sessions.map((s) => brakinglab.getLaps({ sessionId: s.id })));
return laps.map((l) => l.length);
