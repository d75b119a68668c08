// A process that stores one large artifact in a folder store, for tests that kill it mid-write.
import { FolderArtifactStore } from '../../src/artifacts/folder-artifact-store';

const [folder, megabytes] = process.argv.slice(2);
const content = `artifact of ${megabytes} MB: `.padEnd(Number(megabytes) * 1024 * 1024, 'x');
void new FolderArtifactStore(folder!).put(content).then((id) => console.log(id));
