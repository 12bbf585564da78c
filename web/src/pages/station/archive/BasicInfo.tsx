import { EditOutlined } from '@ant-design/icons'
import { Button, Descriptions, Empty, Image, Space, Typography } from 'antd'
import { useQueries } from '@tanstack/react-query'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import type { Station } from '../../../api/station/station'
import { regionNameQuery } from '../../../api/system/queries'
import type { MessageKey } from '../../../components/crud/types'
import { dictOptions } from '../../../components/crud/useFieldOptions'
import MapPicker from '../../../components/map/MapPicker'
import { useDict } from '../../../hooks/useDict'
import { stationDicts } from '../list/logic'
import InstallationStatusTag from '../list/StatusTag'

/** Names of the station's region codes (`region/detail`), joined "province / city / district". */
function useRegionName(codes: (string | null | undefined)[]): string {
  const names = useQueries({
    queries: codes.filter((code): code is string => Boolean(code)).map(regionNameQuery),
    combine: (results) =>
      results.every((r) => r.isSuccess) ? results.map((r) => r.data).join(' / ') : '',
  })
  return names
}

function DictText({ field, value }: { field: keyof typeof stationDicts; value?: string | null }) {
  const entries = useDict(stationDicts[field])
  const labels = useMemo(
    () => Object.fromEntries(dictOptions(entries).map((o) => [String(o.value), o.label])),
    [entries],
  )
  return <>{value ? (labels[value] ?? value) : ''}</>
}

/** The archive's read-only summary of a station, with its images and location; edit opens the form. */
export default function BasicInfo({
  station,
  canEdit,
  onEdit,
}: {
  station: Station
  canEdit: boolean
  onEdit: () => void
}) {
  const { t } = useTranslation()
  const region = useRegionName([station.provinceCode, station.cityCode, station.districtCode])
  const label = (name: string) => t(`stationUi.field.${name}` as MessageKey)
  const plain = (name: keyof Station) => {
    const value = station[name]
    return typeof value === 'string' || typeof value === 'number' ? String(value) : ''
  }
  const item = (name: keyof Station) => (
    <Descriptions.Item key={name} label={label(name)}>
      {plain(name)}
    </Descriptions.Item>
  )
  const dict = (name: keyof typeof stationDicts) => (
    <Descriptions.Item key={name} label={label(name)}>
      <DictText field={name} value={station[name]} />
    </Descriptions.Item>
  )
  const location = { latitude: station.latitude ?? null, longitude: station.longitude ?? null }

  return (
    <div data-testid="archive-basic">
      {canEdit && (
        <Space style={{ marginBottom: 12 }}>
          <Button icon={<EditOutlined />} data-testid="archive-edit" onClick={onEdit}>
            {t('crud.edit')}
          </Button>
        </Space>
      )}
      {/* Labels never wrap (they went one character per line beside long values at 1440 px);
          three columns only on a screen wide enough for them. */}
      <Descriptions
        bordered
        size="small"
        column={{ xs: 1, lg: 2, xxl: 3 }}
        styles={{ label: { whiteSpace: 'nowrap' } }}
        data-testid="archive-basic-info"
      >
        {item('name')}
        {dict('stationType')}
        {dict('state')}
        <Descriptions.Item label={label('installationStatus')}>
          <InstallationStatusTag status={station.installationStatus} />
        </Descriptions.Item>
        {item('gridConnectionTime')}
        <Descriptions.Item label={label('region')}>{region}</Descriptions.Item>
        {item('address')}
        {item('contact')}
        {item('contactPhone')}
        {item('capacity')}
        {item('componentCapacity')}
        {item('componentCount')}
        {item('azimuth')}
        {item('inclination')}
        {dict('inverterManufacturer')}
        {dict('connectedType')}
        {dict('contributionWay')}
        {dict('electricityPriceType')}
        {item('feedInTariff')}
        {item('ownerName')}
        {item('ownerPhone')}
        {item('installer')}
        {item('installerPhone')}
        {item('gatewayId')}
        {item('gatewaySn')}
        {item('remark1')}
        {item('remark2')}
        {item('remark3')}
      </Descriptions>
      <Typography.Title level={5} style={{ marginTop: 16 }}>
        {t('stationUi.section.images')}
      </Typography.Title>
      {(station.images ?? []).length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('stationUi.image.none')} />
      ) : (
        <Image.PreviewGroup>
          <Space wrap>
            {(station.images ?? []).map((image) => (
              <Image
                key={image.attachId}
                src={image.link}
                alt={image.originalName}
                width={120}
                height={90}
                style={{ objectFit: 'cover', borderRadius: 6 }}
                data-testid="archive-image"
              />
            ))}
          </Space>
        </Image.PreviewGroup>
      )}
      <Typography.Title level={5} style={{ marginTop: 16 }}>
        {t('stationUi.section.location')}
      </Typography.Title>
      <MapPicker value={location} disabled height={280} />
    </div>
  )
}
