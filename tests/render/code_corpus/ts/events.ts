/**
 * Typed events for a UI toolkit: listeners as function-typed members, abstract widgets and ambient declarations.
 */

import type { Rect } from "./geometry";

export type Listener<E> = (event: E) => void;

export interface PointerEvent {
  readonly x: number;
  readonly y: number;
  preventDefault(): void;
}

/** What a widget can be told about. */
export interface WidgetEvents {
  onClick: (e: PointerEvent) => void;
  onHover?: (e: PointerEvent) => void;
  onResize: ((size: Rect) => void) | null;
  label: string;
}

export type Handlers = {
  open: () => void;
  close(reason?: string): void;
  retries: number;
};

export enum Phase {
  Capture,
  Target,
  Bubble,
}

export abstract class Widget implements Partial<WidgetEvents> {
  protected abstract readonly kind: string;
  private listeners = new Map<string, Listener<unknown>[]>();

  constructor(protected readonly bounds: Rect) {}

  abstract render(target: HTMLElement): void;

  protected abstract measure(): Rect;

  // Arrow members stay bound when passed to addEventListener.
  onClick = (e: PointerEvent): void => {
    e.preventDefault();
    this.emit("click", e);
  };

  onHover?: (e: PointerEvent) => void;

  emit<E>(name: string, event: E): void {
    for (const listener of this.listeners.get(name) ?? []) {
      (listener as Listener<E>)(event);
    }
  }
}

export class Button extends Widget {
  protected readonly kind = "button";

  render(target: HTMLElement): void {
    target.append(document.createElement("button"));
  }

  protected measure(): Rect {
    return this.bounds;
  }
}

export function on<E>(widget: Widget, name: string, listener: Listener<E>): () => void;
export function on(widget: Widget, name: string, listener: Listener<unknown>): () => void {
  widget.emit("listen", { name, listener });
  return () => widget.emit("unlisten", { name, listener });
}

declare function requestFrame(callback: (time: number) => void): number;

declare namespace Toolkit {
  function register(widget: typeof Widget): void;
  const version: string;
}

declare global {
  interface Window {
    toolkit: typeof Toolkit;
  }
}

export const defaults = {
  phase: Phase.Bubble,
  schedule(task: () => void): number {
    return requestFrame(() => task());
  },
  cancel: (id: number): void => cancelAnimationFrame(id),
};
