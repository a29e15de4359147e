/** Colour on the run screen: on unless NO_COLOR, and only a decoration (every state and verdict also has a word). */
import React, { createContext, useContext } from "react";
import { Text } from "ink";

/** Whether colour is on (off with NO_COLOR). */
export const ColorContext = createContext(true);

export type Color = "green" | "red" | "yellow" | "cyan" | "gray" | "magenta";

export function C({
  color,
  bold,
  dim,
  children,
}: {
  color?: Color;
  bold?: boolean;
  dim?: boolean;
  children: React.ReactNode;
}) {
  const on = useContext(ColorContext);
  return (
    <Text color={on ? color : undefined} bold={on ? bold : undefined} dimColor={on ? dim : undefined}>
      {children}
    </Text>
  );
}
