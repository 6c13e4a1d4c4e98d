const latest = await brakinglab.getSessions({ limit: 1 });
const laps = await brakinglab.getLaps({ sessionId: latest[0].id });
return laps.length;
