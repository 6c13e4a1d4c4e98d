// class 2: arguments passed positionally.
// reply: brakinglab.getWeakCorners takes one argument, an object with named members; got 2 arguments.
// reply: trackName: string
// reply: limit?: number
const weak = await brakinglab.getWeakCorners("Spa", 3);
return weak;
