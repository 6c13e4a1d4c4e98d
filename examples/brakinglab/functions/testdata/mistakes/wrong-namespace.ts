// class 1: a catalogue function called on the discovery namespace.
// reply: getWeakCorners is in another namespace: call brakinglab.getWeakCorners(…).
const weak = await codemode.getWeakCorners({ trackName: "Spa", limit: 3 });
return weak;
