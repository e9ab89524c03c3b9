/** Wine lane only: says on which platform the run happens (the bundles are built on Linux by run.mjs). */
export default function setup(): void {
  console.log(`windows lane: process.platform=${process.platform} node ${process.version}`);
}
