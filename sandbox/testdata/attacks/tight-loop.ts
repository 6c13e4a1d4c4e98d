// expect: TIMEOUT
while (true) {}
