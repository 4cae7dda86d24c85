// Every collection of `/api/collections/{collection}/records`. A feature adds its collection by
// declaring a module (see registry.ts) and listing it here.
import { apiKeysCollection } from "../apikeys/collection.ts";
import { attestationsCollection } from "../attestations/collection.ts";
import { credentialsCollection } from "../attestations/held-collection.ts";
import { connectionsCollection } from "../connections/collection.ts";
import { identitiesCollection } from "../identity/collection.ts";
import { invitationsCollection } from "../invitations/collection.ts";
import { notificationsCollection } from "../notifications/collection.ts";
import { requestsCollection } from "../requests/collection.ts";
import { linksCollection } from "../shares/collection.ts";
import { linkReadsCollection } from "../shares/reads.ts";
import { recordsCollection } from "../vault/records/collection.ts";
import { sectionsCollection } from "../vault/sections/collection.ts";
import { templatesCollection } from "../vault/templates/collection.ts";
import { workspacesCollection } from "../workspaces/collection.ts";
import { membersCollection } from "../workspaces/members.ts";
import { passkeysCollection } from "./passkeys.ts";
import type { AnyCollection } from "./registry.ts";

export const collectionModules: readonly AnyCollection[] = [
	workspacesCollection,
	membersCollection,
	invitationsCollection,
	recordsCollection,
	sectionsCollection,
	templatesCollection,
	notificationsCollection,
	passkeysCollection,
	apiKeysCollection,
	identitiesCollection,
	requestsCollection,
	linksCollection,
	linkReadsCollection,
	connectionsCollection,
	attestationsCollection,
	credentialsCollection,
];
