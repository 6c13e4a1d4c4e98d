// class 8: a field read from an array result.
// reply: latest is the result of brakinglab.getSessions (line 5), declared `{ id: string;
// reply: an array, which has no member id (read at line 6)
// reply: latest[0].id
const latest = await brakinglab.getSessions({ limit: 1 });
const laps = await brakinglab.getLaps({ sessionId: latest.id });
return laps.length;
