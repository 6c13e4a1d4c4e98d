// class 3: a Map returned, which JSON turns into {}.
// reply: result.bestByTrack is a Map
// reply: Object.fromEntries(map)
const sessions = await brakinglab.getSessions({ limit: 20 });
const bestByTrack = new Map<string, number>();
for (const s of sessions) {
  const prev = bestByTrack.get(s.trackName);
  if (s.bestLapMs && (!prev || s.bestLapMs < prev)) bestByTrack.set(s.trackName, s.bestLapMs);
}
return { bestByTrack };
