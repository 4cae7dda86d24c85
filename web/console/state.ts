// A value that components can watch: the session, the locale, the active workspace, the unread
// count. Small enough that a state library would be more code than it saves.
import { useEffect, useState } from "preact/hooks";

export class Observable<T> {
	private listeners = new Set<(value: T) => void>();

	constructor(private value: T) {}

	get(): T {
		return this.value;
	}

	set(value: T): void {
		if (Object.is(value, this.value)) return;
		this.value = value;
		for (const listener of [...this.listeners]) listener(value);
	}

	subscribe(listener: (value: T) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}

/** The observable's current value; the component re-renders when it changes. */
export function useObservable<T>(observable: Observable<T>): T {
	const [value, setValue] = useState(observable.get());
	useEffect(() => {
		setValue(observable.get());
		return observable.subscribe(setValue);
	}, [observable]);
	return value;
}
