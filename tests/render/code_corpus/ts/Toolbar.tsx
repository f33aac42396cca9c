import React, { useCallback, useState } from "react";

export interface ToolbarProps {
  title: string;
  onSelect: (id: string) => void;
  renderItem?: (item: Item) => React.ReactNode;
}

interface Item {
  id: string;
  label: string;
}

export const Toolbar: React.FC<ToolbarProps> = ({ title, onSelect, renderItem }) => {
  const [items] = useState<Item[]>([]);
  const select = useCallback((id: string) => onSelect(id), [onSelect]);
  return (
    <nav aria-label={title}>
      {items.map((item) => (
        <button key={item.id} onClick={() => select(item.id)}>
          {renderItem ? renderItem(item) : item.label}
        </button>
      ))}
    </nav>
  );
};

export function useToolbar(initial: Item[]) {
  const [items, setItems] = useState(initial);
  const add = (item: Item) => setItems((prev) => [...prev, item]);
  return { items, add };
}

export class LegacyToolbar extends React.Component<ToolbarProps> {
  handleClick = (id: string): void => {
    this.props.onSelect(id);
  };

  render() {
    return <nav>{this.props.title}</nav>;
  }
}

export default Toolbar;
