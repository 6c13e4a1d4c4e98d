// class 6: Promise.all over more calls than the limit.
// reply: CALL_LIMIT
// reply: was still running when the script failed with the error above
// reply: This is not a missing await
// not: await Promise.all(...)
const sessions = await brakinglab.getSessions({ limit: 30 });
const laps = await Promise.all(sessions.map((s) => brakinglab.getLaps({ sessionId: s.id })));
return laps.map((l) => l.length);
