const sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 2 });
const out: Record<string, number> = {};
for (const s of sessions) {
  const t = await brakinglab.getLapTelemetry({ sessionId: s.id, lapNumber: 1, resolutionM: 500, channels: ["speedKph"] });
  out[s.id] = t.distanceM.length;
}
return out;
