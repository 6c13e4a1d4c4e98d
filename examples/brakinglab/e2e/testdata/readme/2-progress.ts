// "Am I getting faster at Spa? Show my best lap per session."
const p = await brakinglab.getProgress({ trackName: "Spa" });
for (const s of p.sessions) console.log(s.startedAt.slice(0, 10), s.carName, s.bestLapMs);
return { trend: p.trend, personalBestMs: p.personalBestMs, improvementMs: p.improvementMs, sessions: p.sessions.length };
